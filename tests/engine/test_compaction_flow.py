"""Compaction wired into the engine: manual, overflow -> compact -> retry, threshold, reopening."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.engine.compaction_runner import CompactionFailed
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import CompactionSummaryMessage, UserMessage
from atomic.core.providers.scripted import ScriptedProvider
from tests.engine.test_session_stats import branch_stats

LONG = "\n".join(f"detail line {i}" for i in range(30))


async def _history(session) -> None:
    for i in range(3):
        await session.prompt(f"question {i}\n{LONG}")
        await session.wait_idle()


async def test_manual_compact_persists_entry_backup_and_rebuilds_context(make_session) -> None:
    script = [{"text": f"answer {i}"} for i in range(3)] + [{"text": "2,20\n25,40\n"}, {"text": "after"}]
    session, provider, rec = await make_session(script)
    await _history(session)
    data = (await session.compact()).result
    assert data["rung"] == "planned" and data["promptVersion"] == 3
    assert data["parameters"] == {"compression_ratio": 0.5, "preserve_recent": 2, "query": f"question 2\n{LONG}"}
    assert "(filtered 19 lines)" in data["compactedText"]
    stats = data["stats"]
    # 19 lines from the first range; the second crosses a protected blank separator, so it keeps that line.
    assert stats["linesDeleted"] == 19 + 14
    assert stats["linesKept"] == stats["linesBefore"] - stats["linesDeleted"]
    assert Path(data["backupPath"]).exists() and data["backupPath"].endswith(".compact.bak")
    assert data["firstKeptEntryId"] is not None
    assert rec.of("compaction_start") == [{"type": "compaction_start", "reason": "manual"}]
    end = rec.of("compaction_end")[0]
    assert end["result"]["compactedText"] == data["compactedText"] and end["aborted"] is False
    # The planner was asked with numbered lines.
    planner_request = provider.requests[3]
    assert "1→[User]: question 0" in planner_request.messages[0].content
    # Context = boundary + the two preserved messages.
    messages = session.context_messages()
    assert isinstance(messages[0], CompactionSummaryMessage)
    assert [m.role for m in messages[1:]] == ["user", "assistant"]
    assert branch_stats(session).context_usage.tokens is None
    entry = [e for e in session.store.entries_since(None) if e["type"] == "compaction"][0]
    assert entry["details"]["strategy"] == "verbatim-lines"
    # Next prompt sends the compacted text as a user message, then continues normally.
    await session.prompt("continue")
    await session.wait_idle()
    first = provider.requests[-1].messages[0]
    assert isinstance(first, UserMessage) and "(filtered 19 lines)" in first.content
    assert branch_stats(session).context_usage.tokens is not None


async def test_reopened_compacted_session_keeps_compacted_context(make_session, workdir: Path) -> None:
    script = [{"text": f"answer {i}"} for i in range(3)] + [{"text": "2,20\n"}]
    session, _p, _rec = await make_session(script)
    await _history(session)
    await session.compact()
    reopened = await create_session(
        SessionOptions(cwd=workdir, session=str(session.store.path), scripted=ScriptedProvider([]))
    )
    assert isinstance(reopened.context_messages()[0], CompactionSummaryMessage)
    # The full history is still in the file.
    users = [e for e in reopened.store.entries_since(None) if e["type"] == "message" and e["message"]["role"] == "user"]
    assert len(users) == 3


async def test_compact_with_garbage_planner_answer_fails_clearly(make_session) -> None:
    script = [{"text": f"answer {i}"} for i in range(3)] + [{"text": "I think we should delete the boring bits."}]
    session, _p, rec = await make_session(script)
    await _history(session)
    with pytest.raises(CompactionFailed, match="no usable"):
        await session.compact()
    assert rec.of("compaction_end")[0]["result"] is None
    assert "errorMessage" in rec.of("compaction_end")[0]
    assert not any(e["type"] == "compaction" for e in session.store.entries_since(None))


async def test_overflow_compacts_and_retries_once(make_session) -> None:
    script = [{"text": f"answer {i}"} for i in range(3)] + [
        {"error": "prompt is too long: 250000 tokens > 200000 maximum", "kind": "overflow"},
        {"text": "1,25\n"},
        {"text": "recovered"},
    ]
    session, _p, rec = await make_session(script)
    await _history(session)
    await session.prompt("one more")
    await session.wait_idle()
    assert rec.of("compaction_start")[-1]["reason"] == "overflow"
    end = rec.of("compaction_end")[-1]
    assert end["willRetry"] is True and end["result"] is not None
    assert last_assistant_text(session.context_messages()) == "recovered"


async def test_second_overflow_is_unresolved(make_session) -> None:
    overflow = {"error": "prompt is too long", "kind": "overflow"}
    script = [{"text": f"answer {i}"} for i in range(3)] + [overflow, {"text": "1,25\n"}, overflow]
    session, _p, rec = await make_session(script)
    await _history(session)
    await session.prompt("one more")
    await session.wait_idle()
    last = rec.of("compaction_end")[-1]
    assert last["unresolvedOverflow"] is True
    assert "Context overflow recovery failed" in last["errorMessage"]


async def test_threshold_compaction_after_a_turn(make_session) -> None:
    script = [{"text": f"answer {i}"} for i in range(2)] + [
        {"text": "big one", "usage": {"input": 190_000, "output": 100}},
        {"text": "1,20\n"},
    ]
    session, _p, rec = await make_session(script)
    await _history(session)
    assert [e["reason"] for e in rec.of("compaction_start")] == ["threshold"]
    assert rec.of("compaction_end")[0]["willRetry"] is False


async def test_auto_compaction_can_be_switched_off(make_session) -> None:
    script = [{"text": "big", "usage": {"input": 199_000}}]
    session, _p, rec = await make_session(script)
    session.auto_compaction_enabled = False
    await session.prompt("x")
    await session.wait_idle()
    assert rec.of("compaction_start") == []
    assert session.auto_compaction_enabled is False


async def test_abort_cancels_a_running_compaction(make_session) -> None:
    import asyncio

    script = [{"text": f"answer {i}"} for i in range(3)] + [{"text": "1,", "hang": True}]
    session, _p, rec = await make_session(script)
    await _history(session)
    task = asyncio.ensure_future(session.compact())
    while not session.compaction.is_compacting:
        await asyncio.sleep(0.01)
    await session.abort()
    with pytest.raises(CompactionFailed, match="aborted"):
        await task
    end = rec.of("compaction_end")[-1]
    assert end["aborted"] is True and end["result"] is None
    assert not session.compaction.is_compacting
    assert not any(e["type"] == "compaction" for e in session.store.entries_since(None))
