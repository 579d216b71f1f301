"""Sessions written by pi: summary compactions and branch summaries reach the model as in pi."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atomic.core.agent.convert import convert_to_llm
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.messages import AssistantMessage, BranchSummaryMessage, CompactionSummaryMessage, UserMessage
from atomic.core.providers.scripted import ScriptedProvider


def _user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1}}


def _assistant(entry_id: str, parent: str, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "api": "scripted",
                        "provider": "scripted", "model": "scripted", "stopReason": "stop", "timestamp": 2,
                        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}}}


def write_pi_session(path: Path, cwd: Path) -> None:
    """A pi-shaped file: four old messages, a summary compaction keeping the last two, then more."""
    entries = [
        {"type": "session", "version": 3, "id": "pi-session-1", "timestamp": "2026-01-01T00:00:00.000Z",
         "cwd": str(cwd)},
        _user("u1", None, "OLD-QUESTION-ONE"),
        _assistant("a1", "u1", "OLD-ANSWER-ONE"),
        _user("u2", "a1", "KEPT-QUESTION"),
        _assistant("a2", "u2", "KEPT-ANSWER"),
        {"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": "2026-01-01T00:00:00.000Z",
         "summary": "PI-SUMMARY: the user asked about one thing.", "firstKeptEntryId": "u2",
         "tokensBefore": 1234},
        {"type": "branch_summary", "id": "b1", "parentId": "c1", "timestamp": "2026-01-01T00:00:00.000Z",
         "fromId": "a1", "summary": "BRANCH-SUMMARY: tried another way."},
        _user("u3", "b1", "NEW-QUESTION"),
        _assistant("a3", "u3", "NEW-ANSWER"),
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


async def open_pi_session(tmp_path: Path, responses: list[dict[str, Any]]) -> tuple[Any, ScriptedProvider]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    file = tmp_path / "pi.jsonl"
    write_pi_session(file, cwd)
    provider = ScriptedProvider(responses)
    session = await create_session(SessionOptions(cwd=cwd, scripted=provider, session=str(file)))
    return session, provider


async def test_context_is_summary_then_kept_entries_then_the_rest(tmp_path: Path) -> None:
    session, _provider = await open_pi_session(tmp_path, [])
    messages = session.context_messages()
    assert isinstance(messages[0], CompactionSummaryMessage) and not messages[0].verbatim
    assert messages[0].tokens_before == 1234
    texts = [m.summary if isinstance(m, BranchSummaryMessage) else m.text() if isinstance(m, AssistantMessage)
             else m.content for m in messages[1:]]
    assert texts == ["KEPT-QUESTION", "KEPT-ANSWER", "BRANCH-SUMMARY: tried another way.", "NEW-QUESTION",
                     "NEW-ANSWER"]
    assert isinstance(messages[3], BranchSummaryMessage) and messages[3].from_id == "a1"
    await session.shutdown()


async def test_next_prompt_sends_pi_framing_and_not_the_compacted_history(tmp_path: Path) -> None:
    session, provider = await open_pi_session(tmp_path, [{"text": "ok"}])
    await session.prompt("FOLLOW-UP")
    await session.wait_idle()
    sent = json.dumps([m.to_wire() for m in convert_to_llm(provider.requests[0].messages)])
    assert "OLD-QUESTION-ONE" not in sent and "OLD-ANSWER-ONE" not in sent
    first = convert_to_llm(provider.requests[0].messages)[0]
    assert isinstance(first, UserMessage)
    assert first.content == (
        "The conversation history before this point was compacted into the following summary:\n\n"
        "<summary>\nPI-SUMMARY: the user asked about one thing.\n</summary>"
    )
    assert "The following is a summary of a branch that this conversation came back from:" in sent
    assert sent.index("KEPT-ANSWER") < sent.index("BRANCH-SUMMARY") < sent.index("FOLLOW-UP")
    await session.shutdown()


async def test_wire_messages_have_pi_roles_and_no_private_fields(tmp_path: Path) -> None:
    session, _provider = await open_pi_session(tmp_path, [])
    wire = [m.to_wire() for m in session.context_messages()]
    assert wire[0]["role"] == "compactionSummary" and wire[0]["tokensBefore"] == 1234
    assert "verbatim" not in wire[0]
    assert wire[3] == {"role": "branchSummary", "summary": "BRANCH-SUMMARY: tried another way.", "fromId": "a1",
                       "timestamp": wire[3]["timestamp"]}
    await session.shutdown()


async def test_compacting_again_keeps_the_pi_summary(tmp_path: Path) -> None:
    # The planner deletes the kept answer line; the summaries stay in the compacted text.
    session, provider = await open_pi_session(tmp_path, [{"text": "5,5\n"}, {"text": "after"}])
    data = (await session.compact()).result
    assert "PI-SUMMARY: the user asked about one thing." in data["compactedText"]
    assert "BRANCH-SUMMARY: tried another way." in data["compactedText"]
    await session.prompt("go on")
    await session.wait_idle()
    first = convert_to_llm(provider.requests[-1].messages)[0]
    assert isinstance(first, UserMessage) and "PI-SUMMARY" in str(first.content)
    await session.shutdown()
