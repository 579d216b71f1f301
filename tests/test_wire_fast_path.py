"""`message_update` is serialized by hand on the hot path; its JSON must equal the generic serializer's."""

from __future__ import annotations

import json

import pytest

from atomic.core.events import AssistantMessageEvent, Event, MessageUpdate
from atomic.core.messages import Cost, Usage


def _dumps(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize(
    "event",
    [
        AssistantMessageEvent(type="text_delta", content_index=0, delta="Hel"),
        AssistantMessageEvent(type="thinking_delta", content_index=2, delta=""),
        AssistantMessageEvent(type="toolcall_delta", content_index=1, delta='{"a"'),
        AssistantMessageEvent(type="text_end", content_index=0, content="Hello"),
        AssistantMessageEvent(type="start"),
        AssistantMessageEvent(type="done", reason="stop"),
        AssistantMessageEvent(type="error", reason="error", error_message="boom"),
    ],
)
@pytest.mark.parametrize("end_turn", [None, True, False])
def test_fast_message_update_matches_the_generic_serializer(event: AssistantMessageEvent, end_turn: bool | None) -> None:
    usage = Usage(input=10, output=3, cache_read=5, total_tokens=18, cost=Cost(input=0.1, total=0.1))
    update = MessageUpdate(usage=usage, assistant_message_event=event, end_turn=end_turn)
    assert _dumps(update.to_wire()) == _dumps(Event.to_wire(update))


def test_usage_changed_in_place_shows_in_the_next_update() -> None:
    usage = Usage(input=1)
    event = AssistantMessageEvent(type="text_delta", content_index=0, delta="x")
    first = MessageUpdate(usage=usage, assistant_message_event=event).to_wire()
    usage.output = 7  # the same object, changed in place (cost filled, counts updated)
    usage.cost.total = 0.5
    second = MessageUpdate(usage=usage, assistant_message_event=event).to_wire()
    assert first["usage"]["output"] == 0
    assert second["usage"]["output"] == 7 and second["usage"]["cost"]["total"] == 0.5
    second["usage"]["cost"]["total"] = 99  # a listener changing its copy does not leak into the next one
    assert MessageUpdate(usage=usage, assistant_message_event=event).to_wire()["usage"]["cost"]["total"] == 0.5
