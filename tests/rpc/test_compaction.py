"""The `compact` command and the compaction events, planned by the scripted model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.rpc.conftest import StartRpc

HISTORY = [{"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"}]


async def test_compact_data_shape_events_and_entry(start_rpc: StartRpc) -> None:
    # The fourth scripted response answers the planner: delete lines 2-3 of the transcript.
    client = await start_rpc([*HISTORY, {"text": "2,3\n"}])
    await client.run_prompt("question one\nnoise line A\nnoise line B")
    await client.run_prompt("question two")
    await client.run_prompt("question three")
    entries = (await client.call("get_entries"))["entries"]
    third_question = next(e for e in entries if e["type"] == "message"
                          and e["message"].get("content") == "question three")
    first_event = len(client.events)

    response = await client.request({"id": "c", "type": "compact"})
    assert response["success"] is True and response["id"] == "c" and response["command"] == "compact"
    data = response["data"]
    assert {"compactedText", "firstKeptEntryId", "tokensBefore", "promptVersion", "parameters", "rung",
            "stats", "backupPath"} <= set(data)
    assert "noise line A" not in data["compactedText"] and "noise line B" not in data["compactedText"]
    assert "(filtered 2 lines)" in data["compactedText"]
    assert "question one" in data["compactedText"] and "second answer" in data["compactedText"]
    # Default tail: the newest two messages (question three and its answer) stay outside.
    assert data["firstKeptEntryId"] == third_question["id"]
    assert data["parameters"] == {"compression_ratio": 0.5, "preserve_recent": 2, "query": "question three"}
    assert isinstance(data["promptVersion"], int) and data["rung"] == "planned"
    stats = data["stats"]
    assert set(stats) == {"linesBefore", "linesDeleted", "linesKept", "rangeCount", "tokensBefore",
                          "tokensAfter", "percentReduction"}
    assert stats["linesDeleted"] == 2 and stats["linesKept"] == stats["linesBefore"] - 2
    assert stats["tokensBefore"] == data["tokensBefore"]
    assert Path(data["backupPath"]).exists()

    events = client.events[first_event:]
    assert [e["type"] for e in events] == ["compaction_start", "compaction_end"]
    assert events[0] == {"type": "compaction_start", "reason": "manual"}
    end = events[1]
    assert end["reason"] == "manual" and end["aborted"] is False and end["willRetry"] is False
    assert end["result"]["compactedText"] == data["compactedText"]
    assert end["result"]["firstKeptEntryId"] == data["firstKeptEntryId"]

    messages = await client.get_messages()
    assert [m["role"] for m in messages] == ["compactionSummary", "user", "assistant"]
    assert messages[0]["summary"] == data["compactedText"]
    state = await client.get_state()
    assert state["isCompacting"] is False and state["messageCount"] == 3
    stats_after = await client.call("get_session_stats")
    assert stats_after["contextUsage"]["tokens"] is None and stats_after["contextUsage"]["percent"] is None

    lines = [json.loads(line) for line in Path(state["sessionFile"]).read_text().splitlines()]
    compaction = [e for e in lines if e["type"] == "compaction"]
    assert len(compaction) == 1
    assert compaction[0]["details"]["strategy"] == "verbatim-lines"
    assert compaction[0]["firstKeptEntryId"] == third_question["id"]
    # Pre-compaction history is still in the file and in get_entries.
    assert any(e.get("message", {}).get("content") == "question one\nnoise line A\nnoise line B" for e in lines)

    # The conversation continues on the compacted context.
    await client.run_prompt("after compaction")
    assert await client.get_last_assistant_text() == "You said: after compaction"
    assert [m["role"] for m in await client.get_messages()][-2:] == ["user", "assistant"]


async def test_compact_with_too_little_history_fails(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    empty = await client.request({"id": "c0", "type": "compact"})
    assert empty["success"] is False and empty["command"] == "compact" and empty["id"] == "c0"
    assert "Nothing to compact" in empty["error"]
    await client.run_prompt("just one exchange")
    short = await client.request({"type": "compact"})
    assert short["success"] is False and "Nothing to compact" in short["error"]
    end = [e for e in client.events if e["type"] == "compaction_end"][-1]
    assert end["result"] is None and end["aborted"] is False and end["errorMessage"]
    assert [m["role"] for m in await client.get_messages()] == ["user", "assistant"]


async def test_compact_with_unusable_planner_answer_fails_and_keeps_history(start_rpc: StartRpc) -> None:
    client = await start_rpc([*HISTORY, {"text": "I would rather summarize this conversation."}])
    for text in ("one", "two", "three"):
        await client.run_prompt(text)
    response = await client.request({"type": "compact"})
    assert response["success"] is False and "deletion record" in response["error"]
    assert len(await client.get_messages()) == 6
    lines = Path((await client.get_state())["sessionFile"]).read_text().splitlines()
    assert not [line for line in lines if '"type":"compaction"' in line]


async def test_abort_during_compaction(start_rpc: StartRpc) -> None:
    client = await start_rpc([*HISTORY, {"text": "", "hang": True}])
    for text in ("one", "two", "three"):
        await client.run_prompt(text)
    compact = asyncio.ensure_future(client.request({"id": "c", "type": "compact"}))
    await client.wait_for("compaction_start")
    assert (await client.get_state())["isCompacting"] is True
    await client.abort()
    response = await asyncio.wait_for(compact, 5)
    assert response["success"] is False and response["command"] == "compact"
    end = await client.wait_for("compaction_end")
    assert end["aborted"] is True and end["result"] is None
    state = await client.get_state()
    assert state["isCompacting"] is False and state["messageCount"] == 6


async def test_overflow_compacts_and_retries_the_prompt(start_rpc: StartRpc) -> None:
    client = await start_rpc([
        {"text": "first answer"},
        {"text": "second answer"},
        {"error": "prompt is too long: 250000 tokens > 200000 maximum", "kind": "overflow", "status": 400},
        {"text": "2,3\n"},  # the planner's deletion records
        {"text": "answer after recovery"},
    ])
    await client.run_prompt("question one\nnoise line A\nnoise line B")
    await client.run_prompt("question two")
    end = await client.run_prompt("question three")
    types = [e["type"] for e in client.events if e["type"].startswith("compaction")]
    assert types == ["compaction_start", "compaction_end"]
    start = next(e for e in client.events if e["type"] == "compaction_start")
    assert start["reason"] == "overflow"
    done = next(e for e in client.events if e["type"] == "compaction_end")
    assert done["reason"] == "overflow" and done["willRetry"] is True and done["aborted"] is False
    assert "noise line A" not in done["result"]["compactedText"]
    # The prompt completes after the post-compaction continuation, within the same run.
    assert end["messages"][-1]["content"][0]["text"] == "answer after recovery"
    messages = await client.get_messages()
    assert messages[0]["role"] == "compactionSummary"
    assert await client.get_last_assistant_text() == "answer after recovery"


async def test_planner_transient_error_emits_summarization_retry_events(
    start_rpc: StartRpc, agent_dir: Path
) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 5}}))
    client = await start_rpc([
        *HISTORY,
        {"error": "terminated", "kind": "transient"},
        {"text": "2,3\n"},
    ])
    await client.run_prompt("question one\nnoise line A\nnoise line B")
    await client.run_prompt("two")
    await client.run_prompt("three")
    first = len(client.events)
    data = await client.call("compact")
    assert "noise line A" not in data["compactedText"]
    events = client.events[first:]
    assert [e["type"] for e in events] == [
        "compaction_start",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "compaction_end",
    ]
    scheduled = events[1]
    assert scheduled["attempt"] == 1 and scheduled["delayMs"] == 5 and scheduled["errorMessage"] == "terminated"
    assert scheduled["maxAttempts"] == 3
    assert events[2] == {"type": "summarization_retry_attempt_start", "source": "compaction", "reason": "manual"}
    assert events[3] == {"type": "summarization_retry_finished"}
