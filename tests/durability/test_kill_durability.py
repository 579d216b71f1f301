"""SIGKILL around the first prompt, under CPU contention, never loses what Atomic acknowledged.

200 trials of `atomic --mode rpc` on the scripted provider (tests/durability/kill_trials.py), six at a
time beside two busy processes, each killed at one point: while starting, right after the prompt's
response, at the user's message_end, during streaming, at the assistant's message_end, as the bash tool
starts, at the tool result's message_end, at agent_end, and at the response to a steer or follow_up
sent while the answer streams (that message must be in the file or in its queue journal). Before session writes were ordered (the prompt
was answered before its message was written) about one trial in ten lost an acknowledged prompt.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from tests.durability.kill_trials import KILL_POINTS, run_trials

TRIALS = 200


async def test_killed_atomic_keeps_every_acknowledged_prompt_and_message(tmp_path: Path) -> None:
    results = await run_trials(tmp_path, TRIALS, parallel=6, base_env=dict(os.environ), seed=20261204, hogs=2)
    failures = [
        f"trial {r.index} killed at {r.point} (prompt first: {r.prompt_first}): {r.problems}\n{r.stderr[-400:]}"
        for r in results
        if r.problems
    ]
    assert not failures, "\n".join(failures)
    # The kills landed where they were meant to: the checks above had something to check.
    acknowledged = sum(
        any(m.get("type") == "response" and m.get("command") == "prompt" and m.get("success") for m in r.lines)
        for r in results
    )
    ended = Counter(m["message"]["role"] for r in results for m in r.lines if m.get("type") == "message_end")
    tool_starts = sum(any(m.get("type") == "tool_execution_start" for m in r.lines) for r in results)
    queued = sum(
        any(m.get("type") == "response" and m.get("command") in ("steer", "follow_up") for m in r.lines)
        for r in results
    )
    assert len(results) == TRIALS and len({r.point for r in results}) == len(KILL_POINTS)
    assert acknowledged >= TRIALS // 2
    assert ended["user"] >= TRIALS // 2 and ended["assistant"] >= TRIALS // 3 and ended["toolResult"] >= TRIALS // 5
    assert tool_starts >= TRIALS // 3
    assert queued >= TRIALS // 20
    assert sum(r.session_file is not None for r in results) >= TRIALS // 2
