"""The JSON line of a `message_update`, the one event sent per streamed delta.

Its usage part (eleven numbers, five of them floats) changes only when the provider reports new
counts, yet encoding it cost as much as the rest of the line: it is encoded once per change and
spliced in. The result is the same text as the generic encoding of `event.to_wire()` (pinned by
tests/rpc/test_update_lines.py).
"""

from __future__ import annotations

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
        if event.model_extra or usage.model_extra or cost.model_extra:
            return dumps(event.to_wire())
        key = (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.total_tokens,
               cost.input, cost.output, cost.cache_read, cost.cache_write, cost.total)
        if key != self._usage_key:
            self._usage_json = dumps(usage.to_wire())
            self._usage_key = key
        body = dumps(event.assistant_message_event.to_wire())
        end = "" if event.end_turn is None else (',"endTurn":true' if event.end_turn else ',"endTurn":false')
        return f'{{"type":"message_update","usage":{self._usage_json},"assistantMessageEvent":{body}{end}}}'
