"""`agent_settled`: one per prompt, after everything the prompt set in motion has finished."""

from __future__ import annotations

import asyncio

from tests.rpc.conftest import StartRpc

SLOW = {"text": "streaming slowly along", "chunkSize": 2, "delayMs": 25}


def types_of(events: list[dict[str, object]]) -> list[str]:
    return [str(e["type"]) for e in events if e["type"] in ("agent_start", "agent_end", "agent_settled")]


async def test_one_settled_event_after_agent_end(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "hi"}])
    await client.prompt("hello")
    await client.wait_for("agent_settled")
    await asyncio.sleep(0.2)
    assert types_of(client.events) == ["agent_start", "agent_end", "agent_settled"]


async def test_follow_up_runs_before_the_prompt_settles(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "follow-up reply"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.request({"type": "follow_up", "message": "and then"})
    await client.wait_for("agent_settled")
    await asyncio.sleep(0.2)
    assert types_of(client.events).count("agent_settled") == 1
    assert types_of(client.events)[-1] == "agent_settled"
    assert await client.get_last_assistant_text() == "follow-up reply"


async def test_abort_with_a_queued_steer_settles_once_after_the_continuation(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW, {"text": "after abort"}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.request({"type": "steer", "message": "change course"})
    await client.request({"type": "abort"})
    await client.wait_for("agent_settled")
    await asyncio.sleep(0.3)
    kinds = types_of(client.events)
    # The aborted run and the run of the queued steer, then a single settled event.
    assert kinds == ["agent_start", "agent_end", "agent_start", "agent_end", "agent_settled"]
    assert await client.get_last_assistant_text() == "after abort"


async def test_abort_without_queued_messages_settles(start_rpc: StartRpc) -> None:
    client = await start_rpc([SLOW])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.request({"type": "abort"})
    await client.wait_for("agent_settled")
    assert types_of(client.events) == ["agent_start", "agent_end", "agent_settled"]
