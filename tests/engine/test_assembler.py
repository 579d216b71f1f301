"""The assembler: odd provider event orders never raise, endTurn only when a provider reported one,
and the hand-built message_update JSON equals the generic pydantic dump."""

from __future__ import annotations

import json
from typing import Any

import pytest

from atomic.core.agent.assembler import MessageAssembler
from atomic.core.events import AssistantMessageEvent, MessageUpdate
from atomic.core.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from atomic.core.providers import base as pb
from atomic.core.wire import WireModel


def assemble(events: list[Any]) -> tuple[AssistantMessage, list[dict[str, Any]], MessageAssembler]:
    message = AssistantMessage(api="test", provider="test", model="m")
    updates: list[dict[str, Any]] = []
    assembler = MessageAssembler(message, lambda u: updates.append(u.to_wire()), lambda usage: None)
    assembler.start()
    for event in events:
        assembler.feed(event)
    return message, updates, assembler


def test_odd_event_orders_are_repaired_not_raised() -> None:
    message, updates, _ = assemble([
        pb.TextEnd("ghost"),  # an end for a block that never started
        pb.ToolCallDelta("nope", '{"a": 1}'),  # arguments without a call (no id): dropped
        pb.ToolCallEnd("nope"),
        pb.TextDelta("0", "Hel"),  # a delta before its start opens the block
        pb.TextDelta("0", "lo"),
        pb.ThinkingEnd("0"),  # the key is a text block: ignored
        pb.TextEnd("0"),
        pb.TextDelta("0", " again"),  # the key reused after its end: a new block
        pb.ThinkingDelta("t", "hmm"),
        pb.ToolCallStart("c", id="call_1", name="read"),
        pb.ToolCallDelta("c", '{"path": "a'),
        pb.Done(stop_reason="toolUse"),  # closes the open blocks
    ])
    unreadable = ToolCall(id="call_1", name="read", arguments={})
    unreadable.unreadable_arguments('the arguments are not valid JSON: {"path": "a')
    assert message.content == [
        TextContent(text="Hello"), TextContent(text=" again"), ThinkingContent(thinking="hmm"), unreadable,
    ]
    assert "arguments_error" not in message.content[3].to_wire() and "argumentsError" not in message.to_wire()["content"][3]
    assert message.stop_reason == "toolUse"
    assert [u["assistantMessageEvent"]["type"] for u in updates][-1] == "done"


def test_fail_after_partial_blocks_keeps_the_text() -> None:
    message, updates, assembler = assemble([pb.TextStart("0"), pb.TextDelta("0", "partial")])
    assembler.fail("error", "boom")
    assert message.content == [TextContent(text="partial")]
    assert updates[-1]["assistantMessageEvent"] == {"type": "error", "reason": "error", "errorMessage": "boom"}


@pytest.mark.parametrize(("end_turn", "expected"), [(None, None), (True, True), (False, False)])
def test_end_turn_only_when_the_provider_reported_one(end_turn: bool | None, expected: bool | None) -> None:
    message, updates, _ = assemble([pb.TextDelta("0", "hi"), pb.TextEnd("0"),
                                    pb.Done(stop_reason="stop", end_turn=end_turn)])
    assert message.end_turn is expected
    assert ("endTurn" in message.to_wire()) is (expected is not None)
    assert all("endTurn" not in u for u in updates[:-1])
    assert updates[-1].get("endTurn") is expected


def test_opaque_blocks_are_kept_beside_the_content_and_paused_is_reported() -> None:
    block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": "x"}}
    message, _, assembler = assemble([pb.TextDelta("0", "a"), pb.TextEnd("0"), pb.OpaqueBlock(block),
                                      pb.Done(stop_reason="stop", paused=True)])
    assert [b.position for b in message.provider_blocks or []] == [1]
    assert message.to_wire()["providerBlocks"] == [{"position": 1, "data": block}]
    assert assembler.paused is True


@pytest.mark.parametrize("event", [
    AssistantMessageEvent(type="text_delta", content_index=3, delta="x\u2028y"),
    AssistantMessageEvent(type="toolcall_end", content_index=0, tool_call={"type": "toolCall", "id": "a"}),
    AssistantMessageEvent(type="error", reason="error", error_message="bad"),
    AssistantMessageEvent(type="done", reason="stop"),
])
@pytest.mark.parametrize("end_turn", [None, True])
def test_hand_built_message_update_json_equals_the_generic_dump(event: AssistantMessageEvent,
                                                               end_turn: bool | None) -> None:
    usage = Usage(input=5, output=7, cache_read=1, cache_write=2, total_tokens=15)
    usage.cost.total = 0.5
    update = MessageUpdate(usage=usage, assistant_message_event=event, end_turn=end_turn)
    fast = json.dumps(update.to_wire())
    assert fast == json.dumps(WireModel.to_wire(update))
    assert fast.startswith('{"type": "message_update"')
