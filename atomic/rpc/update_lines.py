"""The JSON line of a `message_update`, the one event sent per streamed delta.

Its usage part (eleven numbers, five of them floats) changes only when the provider reports new
counts, yet encoding it cost as much as the rest of the line: it is encoded once per change and
spliced in. A delta event (`type`, `contentIndex`, `delta` and nothing else) is written by hand
around its one string, encoded by the same C function `json.dumps` uses for a string: a generic
dump per delta cost more than the rest of the delta's path. The result is the same text as the
generic encoding of `event.to_wire()` (pinned by tests/rpc/test_update_lines.py).
"""

from __future__ import annotations

from json.encoder import encode_basestring  # type: ignore[attr-defined]  # the C encoder, not in the stubs
from typing import Any

from atomic.core.events import MessageUpdate
from atomic.rpc.wire_json import dumps


class MessageUpdateLines:
    def __init__(self) -> None:
        self._usage_key: tuple[Any, ...] | None = None
        self._usage_json = ""

    def line(self, event: MessageUpdate) -> str:
        usage = event.usage
        cost = usage.cost
        if (
            event.__pydantic_extra__
            or usage.__pydantic_extra__
            or cost.__pydantic_extra__
            or event.parent_tool_call_id is not None
        ):
            return dumps(event.to_wire())
        key = (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens,
               cost.input, cost.output, cost.cache_read, cost.cache_write, cost.total)
        if key != self._usage_key:
            self._usage_json = dumps(usage.to_wire())
            self._usage_key = key
        inner = event.assistant_message_event
        delta = inner.delta
        index = inner.content_index
        if (
            delta.__class__ is str
            and index.__class__ is int
            and inner.content is None
            and inner.tool_call is None
            and inner.reason is None
            and inner.error_message is None
            and not inner.__pydantic_extra__
        ):
            body = f'{{"type":"{inner.type}","contentIndex":{index},"delta":{encode_basestring(delta)}}}'
        else:
            body = dumps(inner.to_wire())
        end = "" if event.end_turn is None else (',"endTurn":true' if event.end_turn else ',"endTurn":false')
        return f'{{"type":"message_update","usage":{self._usage_json},"assistantMessageEvent":{body}{end}}}'
