"""prompt / steer / follow_up / abort / clear_queue over a real `atomic --mode rpc` subprocess."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import compact_types

# A 1x1 transparent PNG: the scripted provider does not look inside, but the bytes are real.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082"
    )
).decode()

# A reply that streams for a while (~0.3 s), long enough to act on while it runs.
SLOW = {"text": "streaming slowly along", "chunkSize": 2, "delayMs": 25}


async def test_plain_prompt_response_then_events(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "Hello there"}])
    response = await client.request({"id": "req-1", "type": "prompt", "message": "Hi"})
    assert response == {"id": "req-1", "type": "response", "command": "prompt", "success": True}
    end = await client.wait_for("agent_end")
    roles = [m["role"] for m in end["messages"]]
    assert roles == ["user", "assistant"]
    assert end["messages"][1]["content"] == [{"type": "text", "text": "Hello there"}]
    assert end["messages"][1]["stopReason"] == "stop"
    assert await client.get_last_assistant_text() == "Hello there"


async def test_message_update_frames_carry_delta_and_usage_but_no_snapshot(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "abcdefgh", "chunkSize": 3}])
    await client.run_prompt("go")
    updates = [e for e in client.events if e["type"] == "message_update"]
    kinds = [u["assistantMessageEvent"]["type"] for u in updates]
    assert kinds[0] == "start" and kinds[-1] == "done"
    assert "text_start" in kinds and "text_end" in kinds
    deltas = [u["assistantMessageEvent"]["delta"] for u in updates if u["assistantMessageEvent"]["type"] == "text_delta"]
    assert "".join(deltas) == "abcdefgh"
    for update in updates:
        assert "message" not in update
        assert "partial" not in update["assistantMessageEvent"]
        assert set(update["usage"]) >= {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost"}
    start = next(e for e in client.events if e["type"] == "message_start" and e["message"]["role"] == "assistant")
    assert start["message"]["stopReason"] == "pending"


async def test_prompt_with_images_stores_image_blocks(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "a pixel"}])
    image = {"type": "image", "data": PNG, "mimeType": "image/png"}
    await client.prompt("What is this?", images=[image])
    await client.wait_for("agent_end")
    user = (await client.get_messages())[0]
    assert user["role"] == "user"
    assert user["content"] == [{"type": "text", "text": "What is this?"}, image]


async def test_prompt_while_streaming_without_behavior_is_rejected(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW])
    await client.prompt("first")
    await client.wait_for("message_update")
    response = await client.request({"type": "prompt", "message": "second"})
    assert response["success"] is False
    assert response["command"] == "prompt"
    assert "streamingBehavior" in response["error"]
    end = await client.wait_for("agent_end")
    # The rejected prompt never entered the conversation.
    assert [m.get("content") for m in end["messages"] if m["role"] == "user"] == ["first"]


async def test_prompt_with_steer_behavior_runs_after_current_turn(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "steered reply"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    assert await client.prompt("change course", streamingBehavior="steer") is None
    end = await client.wait_for("agent_end")
    texts = [(m["role"], m["content"] if m["role"] == "user" else m["content"][0]["text"]) for m in end["messages"]]
    assert texts == [
        ("user", "first"),
        ("assistant", "streaming slowly along"),
        ("user", "change course"),
        ("assistant", "steered reply"),
    ]


async def test_prompt_with_follow_up_behavior_waits_for_agent_to_finish(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "follow-up reply"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.prompt("then this", streamingBehavior="followUp")
    queued = await client.wait_for("queue_update")
    assert queued["steering"] == [] and queued["followUp"] == ["then this"]
    end = await client.wait_for("agent_end")
    assert [m["role"] for m in end["messages"]] == ["user", "assistant", "user", "assistant"]
    assert end["messages"][2]["content"] == "then this"
    assert end["messages"][3]["content"][0]["text"] == "follow-up reply"


async def test_steer_and_follow_up_commands_respond_and_deliver(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "after steer"}, {"text": "after follow-up"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    steer = await client.request({"id": "s1", "type": "steer", "message": "steer me"})
    follow = await client.request({"id": "f1", "type": "follow_up", "message": "follow me"})
    assert steer == {"id": "s1", "type": "response", "command": "steer", "success": True}
    assert follow == {"id": "f1", "type": "response", "command": "follow_up", "success": True}
    end = await client.wait_for("agent_end")
    users = [m["content"] for m in end["messages"] if m["role"] == "user"]
    # Steering is delivered before the follow-up, which waits until nothing else is left.
    assert users == ["first", "steer me", "follow me"]
    assert await client.get_last_assistant_text() == "after follow-up"


async def test_steer_without_message_field_fails(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"id": "x", "type": "steer"})
    assert response["success"] is False
    assert response["command"] == "steer" and response["id"] == "x"
    assert response["error"]


async def test_abort_responds_only_when_idle(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "partial answer", "hang": True}])
    await client.prompt("never finishes")
    await client.wait_for("message_update", predicate=lambda e: e["assistantMessageEvent"]["type"] == "text_delta")
    response = await client.request({"id": "ab", "type": "abort"})
    assert response == {"id": "ab", "type": "response", "command": "abort", "success": True}
    # The run had fully ended before the abort response was written.
    assert client.index_of_event("agent_end") < client.index_of_response("ab")
    state = await client.get_state()
    assert state["isStreaming"] is False
    end = next(e for e in client.events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert end["message"]["stopReason"] == "aborted"
    messages = await client.get_messages()
    assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"


async def test_abort_when_idle_succeeds(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    assert await client.abort() is None
    assert (await client.get_state())["isStreaming"] is False


async def test_clear_queue_returns_and_empties_both_queues(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "hanging", "hang": True}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.steer("Change direction")
    await client.follow_up("Summarize when finished")
    assert (await client.get_state())["pendingMessageCount"] == 2
    data = await client.call("clear_queue")
    assert data == {"steering": ["Change direction"], "followUp": ["Summarize when finished"]}
    assert (await client.get_state())["pendingMessageCount"] == 0
    last_update = [e for e in client.events if e["type"] == "queue_update"][-1]
    assert last_update == {"type": "queue_update", "steering": [], "followUp": []}
    assert await client.call("clear_queue") == {"steering": [], "followUp": []}
    await client.abort()
    # Nothing queued survives: the agent stays idle after the abort.
    await asyncio.sleep(0.2)
    assert (await client.get_state())["isStreaming"] is False
    users = [m for m in await client.get_messages() if m["role"] == "user"]
    assert [u["content"] for u in users] == ["first"]


async def test_abort_continues_queued_messages(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "hanging", "hang": True}, {"text": "queued ran"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.follow_up("still wanted")
    await client.abort()
    second_end = await client.wait_for("agent_end", after=client.index_of_event("agent_end") + 1)
    assert [m["content"] for m in second_end["messages"] if m["role"] == "user"] == ["still wanted"]
    assert await client.get_last_assistant_text() == "queued ran"


# ---------------------------------------------------------------------------- event sequences


async def test_tool_turn_event_sequence(start_rpc: StartRpc) -> None:
    client = await start_rpc(
        [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "call_a"}]}, {"text": "done"}]
    )
    await client.run_prompt("run it")
    await client.wait_for("agent_settled")
    assert compact_types(client.events) == [
        "agent_start",
        "turn_start",
        "message_start", "message_end",  # user
        "message_start", "message_end",  # assistant with the tool call
        "tool_execution_start",
        "checkpoint_created",  # bash may write: the prompt's checkpoint comes first (Atomic's event)
        "tool_execution_end",
        "message_start", "message_end",  # tool result
        "turn_end",
        "turn_start",
        "message_start", "message_end",  # final assistant text
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    start = next(e for e in client.events if e["type"] == "tool_execution_start")
    assert start == {"type": "tool_execution_start", "toolCallId": "call_a", "toolName": "bash",
                     "args": {"command": "echo hi"}}
    end = next(e for e in client.events if e["type"] == "tool_execution_end")
    assert end["toolCallId"] == "call_a" and end["isError"] is False
    assert end["result"]["content"][0]["text"].strip() == "hi"
    updates = [e for e in client.events if e["type"] == "tool_execution_update"]
    assert all(u["toolCallId"] == "call_a" for u in updates)
    turn_end = next(e for e in client.events if e["type"] == "turn_end")
    assert turn_end["message"]["stopReason"] == "toolUse"
    assert [r["toolCallId"] for r in turn_end["toolResults"]] == ["call_a"]
    tool_call_ends = [e for e in client.events if e["type"] == "message_update"
                      and e["assistantMessageEvent"]["type"] == "toolcall_end"]
    assert tool_call_ends[0]["assistantMessageEvent"]["toolCall"]["arguments"] == {"command": "echo hi"}
    roles = [m["role"] for m in await client.get_messages()]
    assert roles == ["user", "assistant", "toolResult", "assistant"]


async def test_steered_turn_event_sequence(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "ok"}])
    await client.prompt("first")
    await client.wait_for("message_update", predicate=lambda e: e["assistantMessageEvent"]["type"] == "text_delta")
    await client.steer("steer now")
    await client.wait_for("agent_settled")
    assert compact_types(client.events) == [
        "agent_start",
        "turn_start",
        "message_start", "message_end",  # user "first"
        "message_start",  # assistant streaming...
        "queue_update",  # ...when the steer arrives
        "message_end",
        "turn_end",
        "queue_update",  # the steering message leaves the queue
        "turn_start",
        "message_start", "message_end",  # user "steer now"
        "message_start", "message_end",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    queue_updates = [e for e in client.events if e["type"] == "queue_update"]
    assert queue_updates[0]["steering"] == ["steer now"]
    assert queue_updates[1]["steering"] == []


async def test_aborted_turn_event_sequence(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "stuck", "hang": True}])
    await client.prompt("hang please")
    await client.wait_for("message_update", predicate=lambda e: e["assistantMessageEvent"]["type"] == "text_delta")
    await client.abort()
    assert compact_types(client.events) == [
        "agent_start",
        "turn_start",
        "message_start", "message_end",
        "message_start", "message_end",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    last_update = [e for e in client.events if e["type"] == "message_update"][-1]
    assert last_update["assistantMessageEvent"]["type"] == "error"
    assert last_update["assistantMessageEvent"].get("reason") == "aborted"
    turn_end = next(e for e in client.events if e["type"] == "turn_end")
    assert turn_end["message"]["stopReason"] == "aborted"
    assert turn_end["toolResults"] == []


async def test_steer_during_tool_call_is_delivered_before_next_llm_call(start_rpc: StartRpc) -> None:
    client = await start_rpc([
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 0.4; echo tool-done"}}]},
        {"text": "after tools"},
        {"text": "after steer"},
    ])
    await client.prompt("use a tool")
    await client.wait_for("tool_execution_start")
    await client.steer("new instruction")
    end = await client.wait_for("agent_end")
    summary = [m["role"] if m["role"] != "user" else f"user:{m['content']}" for m in end["messages"]]
    assert summary == ["user:use a tool", "assistant", "toolResult", "user:new instruction", "assistant"]
    assert end["messages"][-1]["content"][0]["text"] == "after tools"


async def test_follow_up_waits_for_tool_calls_to_finish(start_rpc: StartRpc) -> None:
    client = await start_rpc([
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 0.3"}}]},
        {"text": "tools finished"},
        {"text": "follow-up answered"},
    ])
    await client.prompt("use a tool")
    await client.wait_for("tool_execution_start")
    await client.follow_up("afterwards")
    end = await client.wait_for("agent_end")
    roles = [m["role"] for m in end["messages"]]
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert end["messages"][3]["content"][0]["text"] == "tools finished"


async def test_abort_during_tool_execution_kills_it(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"toolCalls": [{"name": "bash", "arguments": {"command": "echo started; sleep 30"}}]}])
    await client.prompt("run forever")
    await client.wait_for("tool_execution_update")
    loop = asyncio.get_running_loop()
    started = loop.time()
    await client.abort()
    assert loop.time() - started < 5
    assert (await client.get_state())["isStreaming"] is False
    messages = await client.get_messages()
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult"]
    assert messages[2]["isError"] is True
    types = compact_types(client.events)
    assert types[-3:] == ["turn_end", "agent_end", "agent_settled"]


async def test_thinking_deltas_stream(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"thinking": "let me think", "text": "thought through"}])
    await client.run_prompt("think")
    kinds = [e["assistantMessageEvent"]["type"] for e in client.events if e["type"] == "message_update"]
    assert kinds.index("thinking_start") < kinds.index("thinking_end") < kinds.index("text_start")
    final = (await client.get_messages())[-1]
    assert final["content"][0]["type"] == "thinking"
    assert final["content"][0]["thinking"] == "let me think"
    assert await client.get_last_assistant_text() == "thought through"


async def test_provider_error_after_acceptance_is_reported_as_a_message(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"error": "400 bad request", "kind": "fatal", "status": 400}])
    response = await client.request({"id": "p", "type": "prompt", "message": "fail please"})
    assert response["success"] is True  # accepted; the failure arrives through the event stream
    end = await client.wait_for("agent_end")
    failed = end["messages"][-1]
    assert failed["role"] == "assistant" and failed["stopReason"] == "error"
    assert "400 bad request" in failed["errorMessage"]
    assert len([r for r in client.responses if r.get("id") == "p"]) == 1
    assert await client.call("get_last_assistant_text") == {"text": None}


async def test_auto_retry_recovers_from_a_transient_error(start_rpc: StartRpc, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 10}}), encoding="utf-8")
    client = await start_rpc([{"error": "529 overloaded", "kind": "transient", "status": 529}, {"text": "recovered"}])
    await client.run_prompt("flaky")
    start = await client.wait_for("auto_retry_start")
    assert start["attempt"] == 1 and start["maxAttempts"] == 3 and start["delayMs"] == 10
    assert "529" in start["errorMessage"]
    end = await client.wait_for("auto_retry_end")
    assert end["success"] is True and end["attempt"] == 1
    assert await client.get_last_assistant_text() == "recovered"


async def test_steer_and_follow_up_with_images(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "saw steer image"}, {"text": "saw follow-up image"}])
    image = {"type": "image", "data": PNG, "mimeType": "image/png"}
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.call("steer", message="look here", images=[image])
    await client.call("follow_up", message="and here", images=[image])
    await client.wait_for("agent_end")
    users = [m for m in await client.get_messages() if m["role"] == "user"]
    assert users[1]["content"] == [{"type": "text", "text": "look here"}, image]
    assert users[2]["content"] == [{"type": "text", "text": "and here"}, image]


async def test_parallel_tool_results_keep_call_order(start_rpc: StartRpc) -> None:
    client = await start_rpc([
        {"toolCalls": [
            {"name": "bash", "arguments": {"command": "sleep 0.3; echo slow"}, "id": "slow"},
            {"name": "bash", "arguments": {"command": "echo fast"}, "id": "fast"},
        ]},
        {"text": "both done"},
    ])
    end = await client.run_prompt("two tools")
    results = [m for m in end["messages"] if m["role"] == "toolResult"]
    assert [r["toolCallId"] for r in results] == ["slow", "fast"]
    assert [r["content"][0]["text"].strip() for r in results] == ["slow", "fast"]
    turn_end = next(e for e in client.events if e["type"] == "turn_end")
    assert [r["toolCallId"] for r in turn_end["toolResults"]] == ["slow", "fast"]


async def test_unknown_tool_gives_error_result_and_loop_continues(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"toolCalls": [{"name": "teleport", "arguments": {}, "id": "t"}]}, {"text": "ok"}])
    end = await client.run_prompt("use a missing tool")
    result = next(m for m in end["messages"] if m["role"] == "toolResult")
    assert result["isError"] is True and result["toolCallId"] == "t"
    assert await client.get_last_assistant_text() == "ok"


async def test_streaming_behavior_when_idle_runs_normally(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "normal"}])
    await client.prompt("not streaming yet", streamingBehavior="steer")
    end = await client.wait_for("agent_end")
    assert [m["role"] for m in end["messages"]] == ["user", "assistant"]
    assert end["messages"][0]["content"] == "not streaming yet"


async def test_new_session_while_streaming_aborts_the_run(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "stuck", "hang": True}])
    await client.prompt("in old session")
    await client.wait_for("message_update")
    old = (await client.get_state())["sessionFile"]
    assert await client.call("new_session") == {"cancelled": False}
    state = await client.get_state()
    assert state["isStreaming"] is False and state["messageCount"] == 0
    assert state["sessionFile"] != old
    end = next(e for e in client.events if e["type"] == "message_end" and e["message"]["role"] == "assistant")
    assert end["message"]["stopReason"] == "aborted"
    old_lines = [json.loads(line) for line in Path(old).read_text().splitlines()]
    assert [e["message"]["role"] for e in old_lines if e["type"] == "message"] == ["user", "assistant"]
