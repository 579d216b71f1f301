"""The agent loop on the scripted provider: turns, tools, queues, abort, errors and retries."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from atomic.core.engine.session import PromptRejected
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import AssistantMessage, ToolResultMessage, UserMessage
from tests.support import wait_for


def process_alive(pid: int) -> bool:
    """Alive and not a zombie (a container's init may not reap orphans at once)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_plain_reply_event_order(make_session) -> None:
    session, provider, rec = await make_session([{"text": "Hello there, friend", "chunkSize": 5}])
    await session.prompt("hi")
    await session.wait_idle()
    assert rec.types()[:5] == ["agent_start", "turn_start", "message_start", "message_end", "message_start"]
    assert rec.types()[-4:] == ["message_end", "turn_end", "agent_end", "agent_settled"]
    updates = [e["assistantMessageEvent"] for e in rec.of("message_update")]
    kinds = [u["type"] for u in updates]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert "".join(u["delta"] for u in updates if u["type"] == "text_delta") == "Hello there, friend"
    assert all("message" not in e and "partial" not in e["assistantMessageEvent"] for e in rec.of("message_update"))
    start = rec.of("message_start")[1]["message"]
    assert start["stopReason"] == "pending"
    end = rec.of("message_end")[-1]["message"]
    assert end["stopReason"] == "stop" and end["content"][0]["text"] == "Hello there, friend"
    assert last_assistant_text(session.context_messages()) == "Hello there, friend"
    # The provider was sent the system prompt and the user message.
    request = provider.requests[0]
    assert "Atomic" in request.system_prompt
    assert isinstance(request.messages[-1], UserMessage)


async def test_tool_calls_run_concurrently_but_results_keep_call_order(make_session, workdir: Path) -> None:
    script = [
        {
            "toolCalls": [
                {"name": "bash", "arguments": {"command": "sleep 0.3; echo slow"}},
                {"name": "bash", "arguments": {"command": "echo fast"}},
            ]
        },
        {"text": "both done"},
    ]
    session, provider, rec = await make_session(script)
    started = asyncio.get_running_loop().time()
    await session.prompt("run two")
    await session.wait_idle()
    elapsed = asyncio.get_running_loop().time() - started
    ends = rec.of("tool_execution_end")
    # The fast one finishes first...
    assert [e["result"]["content"][0]["text"] for e in ends] == ["fast", "slow"]
    # ...but results are stored in call order.
    results = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert [r.content[0].text for r in results] == ["slow", "fast"]
    assert elapsed < 1.5
    # The second LLM call saw both tool results.
    assert sum(isinstance(m, ToolResultMessage) for m in provider.requests[1].messages) == 2


async def test_unknown_tool_and_invalid_arguments_become_error_results(make_session) -> None:
    session, _p, rec = await make_session(
        [{"toolCalls": [{"name": "nope", "arguments": {}}]}, {"text": "ok"}]
    )
    await session.prompt("x")
    await session.wait_idle()
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    assert end["result"]["content"][0]["text"] == "Tool nope not found"


async def test_steering_is_delivered_after_tools_before_next_call(make_session) -> None:
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 0.3"}}]},
        {"text": "after steer"},
        {"text": "final"},
    ]
    session, provider, rec = await make_session(script)
    await session.prompt("start")
    await wait_for(lambda: bool(rec.of("tool_execution_start")))
    await session.prompt("change course", streaming_behavior="steer")
    assert rec.of("queue_update")[-1]["steering"] == ["change course"]
    await session.wait_idle()
    # The second LLM request ends with the tool result followed by the steering message.
    second = provider.requests[1].messages
    assert isinstance(second[-2], ToolResultMessage)
    assert isinstance(second[-1], UserMessage) and second[-1].content == "change course"
    assert rec.of("queue_update")[-1]["steering"] == []


async def test_follow_up_waits_until_the_agent_would_stop(make_session) -> None:
    script = [{"text": "first answer", "delayMs": 20}, {"text": "follow-up answer"}]
    session, provider, rec = await make_session(script)
    await session.prompt("one")
    await session.follow_up("two")
    await session.wait_idle()
    users = [m.content for m in session.context_messages() if isinstance(m, UserMessage)]
    assert users == ["one", "two"]
    assert len(provider.requests) == 2
    assert rec.types().count("agent_start") == 1


async def test_all_mode_delivers_every_queued_message_at_once(make_session) -> None:
    script = [{"text": "busy", "delayMs": 30}, {"text": "got both"}]
    session, provider, _rec = await make_session(script)
    session.follow_ups.mode = "all"
    await session.prompt("one")
    await session.follow_up("a")
    await session.follow_up("b")
    await session.wait_idle()
    assert len(provider.requests) == 2
    assert [m.content for m in provider.requests[1].messages if isinstance(m, UserMessage)][-2:] == ["a", "b"]


async def test_prompt_while_streaming_without_behavior_is_rejected(make_session) -> None:
    session, _p, _rec = await make_session([{"text": "slow", "hang": True}])
    await session.prompt("one")
    with pytest.raises(PromptRejected, match="streamingBehavior"):
        await session.prompt("two")
    await session.abort()


async def test_abort_ends_stream_as_aborted_and_keeps_queue(make_session) -> None:
    session, _p, rec = await make_session([{"text": "partial answer", "hang": True}])
    await session.prompt("go")
    await wait_for(lambda: any(e["assistantMessageEvent"]["type"] == "text_delta" for e in rec.of("message_update")))
    await session.steer("later")
    session.clear_queue()
    await session.abort()
    assert not session.is_streaming
    last = rec.of("message_end")[-1]["message"]
    assert last["stopReason"] == "aborted"
    assert last["content"][0]["text"] == "partial answer"
    assert rec.types()[-2:] == ["agent_end", "agent_settled"]


async def test_abort_kills_a_running_bash_tool_group(make_session, workdir: Path) -> None:
    marker = workdir / "pid"
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": f"sleep 30 & echo $! > {marker}; wait"}}]}]
    session, _p, rec = await make_session(script)
    await session.prompt("run")
    await wait_for(marker.exists)
    await asyncio.sleep(0.1)
    pid = int(marker.read_text())
    await session.abort()
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    await wait_for(lambda: not process_alive(pid), timeout=3)
    # The tool call got a result, so the history stays valid for the next call.
    assert isinstance(session.context_messages()[-1], ToolResultMessage)


async def test_fatal_provider_error_ends_with_error_message(make_session) -> None:
    session, _p, rec = await make_session([{"error": "400 invalid request", "kind": "fatal"}])
    await session.prompt("x")
    await session.wait_idle()
    last = rec.of("message_end")[-1]["message"]
    assert last["stopReason"] == "error"
    assert last["errorMessage"] == "400 invalid request"
    assert rec.of("auto_retry_start") == []


async def test_transient_errors_retry_with_events(make_session) -> None:
    script = [
        {"error": "529 overloaded", "kind": "transient"},
        {"error": "529 overloaded", "kind": "transient"},
        {"text": "finally"},
    ]
    session, provider, rec = await make_session(script)
    session.settings.retry.base_delay_ms = 10
    await session.prompt("x")
    await session.wait_idle()
    starts = rec.of("auto_retry_start")
    assert [(s["attempt"], s["delayMs"]) for s in starts] == [(1, 10), (2, 20)]
    assert starts[0]["errorMessage"] == "529 overloaded" and starts[0]["maxAttempts"] == 3
    assert rec.of("auto_retry_end") == [{"type": "auto_retry_end", "success": True, "attempt": 2}]
    assert last_assistant_text(session.context_messages()) == "finally"
    # The failed attempts stay in the session file but are not sent to the model again.
    assert all(
        not (isinstance(m, AssistantMessage) and m.stop_reason == "error") for m in provider.requests[-1].messages
    )
    stored = [e for e in session.store.entries_since(None) if e["type"] == "message"]
    assert sum(e["message"].get("stopReason") == "error" for e in stored) == 2


async def test_retries_give_up_after_max(make_session) -> None:
    script = [{"error": "503 unavailable", "kind": "transient"}] * 3
    session, _p, rec = await make_session(script)
    session.settings.retry.base_delay_ms = 1
    session.settings.retry.max_retries = 2
    await session.prompt("x")
    await session.wait_idle()
    assert rec.of("auto_retry_end")[-1] == {
        "type": "auto_retry_end",
        "success": False,
        "attempt": 2,
        "finalError": "503 unavailable",
    }


async def test_abort_retry_cancels_the_wait(make_session) -> None:
    session, _p, rec = await make_session([{"error": "529 overloaded", "kind": "transient"}])
    session.settings.retry.base_delay_ms = 60_000
    await session.prompt("x")
    await wait_for(lambda: bool(rec.of("auto_retry_start")))
    session.abort_retry()
    await asyncio.wait_for(session.wait_idle(), 2)
    assert rec.of("auto_retry_end")[-1]["finalError"] == "Retry cancelled"


async def test_direct_bash_output_reaches_the_model_with_the_next_prompt(make_session) -> None:
    session, provider, _rec = await make_session([{"text": "seen"}])
    chunks: list[tuple[str, str]] = []
    result = await session.bash.run("echo visible; echo problem >&2", on_chunk=lambda c, t: chunks.append((c, t)))
    assert result.exit_code == 0 and "visible" in result.output
    assert ("stdout", "visible\n") in chunks and ("stderr", "problem\n") in chunks
    hidden = await session.bash.run("echo secret", exclude_from_context=True)
    assert hidden.output == "secret"
    await session.prompt("what happened?")
    await session.wait_idle()
    texts = [m.content for m in provider.requests[0].messages if isinstance(m, UserMessage)]
    assert texts[0].startswith("Ran `echo visible; echo problem >&2`\n```\nvisible")
    assert not any("secret" in t for t in texts if isinstance(t, str))


async def test_persisted_thinking_level_is_saved_per_model(make_session, agent_dir: Path) -> None:
    import json

    session, _p, _rec = await make_session([])
    change = session.models.set_thinking_level("high", persist=True)
    assert (change.level, change.provider, change.model_id) == ("high", "scripted", "scripted-model")
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved["defaultThinkingLevel"] == "high"
    assert saved["modelThinkingLevels"] == {"scripted/scripted-model": "high"}
    session.models.set_thinking_level("low")
    assert json.loads((agent_dir / "settings.json").read_text())["defaultThinkingLevel"] == "high"


async def test_abort_continues_messages_that_stay_queued(make_session) -> None:
    session, provider, rec = await make_session([{"text": "long", "hang": True}, {"text": "handled the steer"}])
    await session.prompt("first")
    await wait_for(lambda: any(e["assistantMessageEvent"]["type"] == "text_delta" for e in rec.of("message_update")))
    await session.steer("then this")
    await session.abort()
    assert rec.of("message_end")[-1]["message"]["stopReason"] == "aborted"
    await wait_for(lambda: rec.types().count("agent_end") == 2)
    assert last_assistant_text(session.context_messages()) == "handled the steer"
    assert provider.requests[-1].messages[-1].content == "then this"


async def test_new_session_keeps_queue_without_running_it(make_session) -> None:
    session, _p, rec = await make_session([{"text": "long", "hang": True}])
    await session.prompt("first")
    await wait_for(lambda: any(e["assistantMessageEvent"]["type"] == "text_delta" for e in rec.of("message_update")))
    await session.follow_up("later")
    assert await session.files.new_session()
    await asyncio.sleep(0.05)
    assert not session.is_streaming
    assert session.follow_ups.texts() == ["later"]
    assert session.context_messages() == []
