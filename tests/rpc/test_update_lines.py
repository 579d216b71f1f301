"""message_update lines: the spliced fast path writes exactly what the generic encoder writes."""

from __future__ import annotations

import json

import pytest

from atomic.core.events import AssistantMessageEvent, MessageUpdate
from atomic.core.messages import Usage
from atomic.rpc.update_lines import MessageUpdateLines
from atomic.rpc.wire_json import dumps


def update(usage: Usage, end_turn: bool | None = None, **event: object) -> MessageUpdate:
    return MessageUpdate(usage=usage, assistant_message_event=AssistantMessageEvent(**event), end_turn=end_turn)


@pytest.mark.parametrize("end_turn", [None, True, False])
def test_lines_equal_the_generic_encoding_as_usage_changes(end_turn: bool | None) -> None:
    lines = MessageUpdateLines()
    usage = Usage(input=10, output=1, total_tokens=11)
    events = [update(usage, end_turn, type="text_delta", content_index=0, delta="a \u2028 \"q\" \ud800")]
    usage.output, usage.total_tokens, usage.cost.total = 9, 19, 0.25  # counts change in place
    events.append(update(usage, end_turn, type="text_delta", content_index=0, delta="b"))
    events.append(update(Usage(input=3), end_turn, type="done", reason="stop"))
    events.append(update(usage, end_turn, type="toolcall_end", content_index=1, tool_call={"id": "c", "arguments": {}}))
    events.append(update(usage, end_turn, type="thinking_delta", content_index=2, delta="\x00\\ \n é 👋"))
    events.append(update(usage, end_turn, type="toolcall_delta", content_index=3, delta='{"path": "a'))
    events.append(update(usage, end_turn, type="text_delta", content_index=0, delta=""))
    for event in events:
        text = lines.line(event)
        assert text == dumps(event.to_wire())
        assert json.loads(text)["usage"]["output"] == event.usage.output


def test_extra_fields_take_the_generic_path() -> None:
    event = update(Usage(), type="start")
    event.usage.__pydantic_extra__["reasoning"] = 5  # type: ignore[index]
    assert MessageUpdateLines().line(event) == dumps(event.to_wire())
    assert '"reasoning":5' in MessageUpdateLines().line(event)


def test_a_subagents_delta_keeps_its_parent_tool_call_id() -> None:
    event = update(Usage(), type="text_delta", content_index=0, delta="x").model_copy(
        update={"parent_tool_call_id": "task_1"}
    )
    text = MessageUpdateLines().line(event)
    assert text == dumps(event.to_wire())
    assert json.loads(text)["parentToolCallId"] == "task_1"
