"""Builds the AssistantMessage from provider events and produces the wire's `message_update` events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from atomic.core.events import AssistantMessageEvent, MessageUpdate
from atomic.core.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from atomic.core.providers import base as pb


def parse_tool_arguments(text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        # Keep the malformed text so the tool can report it instead of silently running with {}.
        return {"__invalid_json__": text}
    return value if isinstance(value, dict) else {"value": value}


class MessageAssembler:
    def __init__(
        self,
        message: AssistantMessage,
        emit: Callable[[MessageUpdate], None],
        on_usage: Callable[[Usage], None],
    ) -> None:
        self.message = message
        self._emit = emit
        self._on_usage = on_usage
        self._index: dict[str, int] = {}
        self._buffers: dict[int, list[str]] = {}

    def _update(self, event: AssistantMessageEvent) -> None:
        self._emit(
            MessageUpdate(usage=self.message.usage, assistant_message_event=event, end_turn=self.message.end_turn)
        )

    def _start(self, key: str, block: Any) -> int:
        index = len(self.message.content)
        self.message.content.append(block)
        self._index[key] = index
        self._buffers[index] = []
        return index

    def start(self) -> None:
        self._update(AssistantMessageEvent(type="start"))

    def feed(self, event: pb.ProviderEvent) -> None:
        if isinstance(event, pb.TextStart):
            index = self._start(event.key, TextContent(text=""))
            self._update(AssistantMessageEvent(type="text_start", content_index=index))
        elif isinstance(event, pb.TextDelta):
            index = self._index.get(event.key)
            if index is None:
                index = self._start(event.key, TextContent(text=""))
                self._update(AssistantMessageEvent(type="text_start", content_index=index))
            self._buffers[index].append(event.delta)
            self._update(AssistantMessageEvent(type="text_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.TextEnd):
            index = self._index[event.key]
            block = self.message.content[index]
            block.text = "".join(self._buffers[index])
            if event.signature:
                block.text_signature = event.signature
            self._update(AssistantMessageEvent(type="text_end", content_index=index, content=block.text))
        elif isinstance(event, pb.ThinkingStart):
            index = self._start(event.key, ThinkingContent(thinking=""))
            self._update(AssistantMessageEvent(type="thinking_start", content_index=index))
        elif isinstance(event, pb.ThinkingDelta):
            index = self._index.get(event.key)
            if index is None:
                index = self._start(event.key, ThinkingContent(thinking=""))
                self._update(AssistantMessageEvent(type="thinking_start", content_index=index))
            self._buffers[index].append(event.delta)
            self._update(AssistantMessageEvent(type="thinking_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.ThinkingEnd):
            index = self._index[event.key]
            block = self.message.content[index]
            block.thinking = "".join(self._buffers[index])
            block.thinking_signature = event.signature
            if event.redacted:
                block.redacted = True
            self._update(AssistantMessageEvent(type="thinking_end", content_index=index, content=block.thinking))
        elif isinstance(event, pb.ToolCallStart):
            index = self._start(event.key, ToolCall(id=event.id, name=event.name, arguments={}))
            self._update(AssistantMessageEvent(type="toolcall_start", content_index=index))
        elif isinstance(event, pb.ToolCallDelta):
            index = self._index[event.key]
            self._buffers[index].append(event.delta)
            self._update(AssistantMessageEvent(type="toolcall_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.ToolCallEnd):
            index = self._index[event.key]
            block = self.message.content[index]
            block.arguments = parse_tool_arguments("".join(self._buffers[index]))
            self._update(
                AssistantMessageEvent(type="toolcall_end", content_index=index, tool_call=block.to_wire())
            )
        elif isinstance(event, pb.UsageUpdate):
            self.message.usage = event.usage
            self._on_usage(self.message.usage)
        elif isinstance(event, pb.Done):
            self.close_open_blocks()
            self.message.stop_reason = event.stop_reason
            if event.response_id:
                self.message.response_id = event.response_id
            if event.end_turn is not None:
                self.message.end_turn = event.end_turn
            self._update(AssistantMessageEvent(type="done", reason=event.stop_reason))

    def close_open_blocks(self) -> None:
        """Settle blocks whose end never arrived (abort, error) so the final message is complete."""
        for index, parts in self._buffers.items():
            block = self.message.content[index]
            if isinstance(block, TextContent) and not block.text and parts:
                block.text = "".join(parts)
            elif isinstance(block, ThinkingContent) and not block.thinking and parts:
                block.thinking = "".join(parts)
            elif isinstance(block, ToolCall) and not block.arguments and parts:
                block.arguments = parse_tool_arguments("".join(parts))

    def fail(self, reason: str, error_message: str | None) -> None:
        self.close_open_blocks()
        self.message.stop_reason = reason  # type: ignore[assignment]
        self.message.error_message = error_message
        self._update(AssistantMessageEvent(type="error", reason=reason, error_message=error_message))
