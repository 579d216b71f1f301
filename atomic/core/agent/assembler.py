"""Builds the AssistantMessage from provider events and produces the wire's `message_update` events.

The assembler never raises on an odd event order (an end for a block that never started, a delta
after the block ended, a key reused for another kind of block): it repairs what it can and skips
the rest, so a provider's quirk cannot leave a run without its `message_end` and `agent_end`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from atomic.core.events import AssistantMessageEvent, MessageUpdate
from atomic.core.messages import (
    AssistantMessage,
    ErrorKind,
    ProviderBlock,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from atomic.core.providers import base as pb

BlockStart = Literal["text_start", "thinking_start", "toolcall_start"]


def parse_tool_arguments(text: str) -> tuple[dict[str, Any], str | None]:
    """The arguments object of a call's streamed JSON, or ({}, why it cannot be read)."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except ValueError:
        return {}, f"the arguments are not valid JSON: {text[:500]}"
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, not {text[:500]}"
    return value, None


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
        self._closed: set[int] = set()
        # Set by a `Done(paused=True)`: the loop continues this turn with another request.
        self.paused = False

    def _update(self, event: AssistantMessageEvent) -> None:
        self._emit(
            MessageUpdate(usage=self.message.usage, assistant_message_event=event, end_turn=self.message.end_turn)
        )

    def _start(self, key: str, block: Any, kind: BlockStart) -> int:
        index = len(self.message.content)
        self.message.content.append(block)
        self._index[key] = index
        self._buffers[index] = []
        self._update(AssistantMessageEvent(type=kind, content_index=index))
        return index

    def _open(self, key: str, cls: type) -> int | None:
        """The content index of the still-open block of class `cls` under `key`, else None."""
        index = self._index.get(key)
        if index is None or index in self._closed or not isinstance(self.message.content[index], cls):
            return None
        return index

    def start(self) -> None:
        self._update(AssistantMessageEvent(type="start"))

    def feed(self, event: pb.ProviderEvent) -> None:
        if isinstance(event, pb.TextDelta):  # the hot path: checked first
            index = self._open(event.key, TextContent)
            if index is None:
                index = self._start(event.key, TextContent(text=""), "text_start")
            self._buffers[index].append(event.delta)
            self._update(AssistantMessageEvent(type="text_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.ThinkingDelta):
            index = self._open(event.key, ThinkingContent)
            if index is None:
                index = self._start(event.key, ThinkingContent(thinking=""), "thinking_start")
            self._buffers[index].append(event.delta)
            self._update(AssistantMessageEvent(type="thinking_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.ToolCallDelta):
            index = self._open(event.key, ToolCall)
            if index is not None:  # arguments for a call that never started have no id: dropped
                self._buffers[index].append(event.delta)
                self._update(AssistantMessageEvent(type="toolcall_delta", content_index=index, delta=event.delta))
        elif isinstance(event, pb.TextStart):
            self._start(event.key, TextContent(text=""), "text_start")
        elif isinstance(event, pb.ThinkingStart):
            self._start(event.key, ThinkingContent(thinking=""), "thinking_start")
        elif isinstance(event, pb.ToolCallStart):
            self._start(event.key, ToolCall(id=event.id, name=event.name, arguments={}), "toolcall_start")
        elif isinstance(event, pb.TextEnd):
            index = self._open(event.key, TextContent)
            if index is not None:
                block = self._settle(index)
                if event.signature:
                    block.text_signature = event.signature
                self._update(AssistantMessageEvent(type="text_end", content_index=index, content=block.text))
        elif isinstance(event, pb.ThinkingEnd):
            index = self._open(event.key, ThinkingContent)
            if index is not None:
                block = self._settle(index)
                block.thinking_signature = event.signature
                if event.redacted:
                    block.redacted = True
                self._update(
                    AssistantMessageEvent(type="thinking_end", content_index=index, content=block.thinking)
                )
        elif isinstance(event, pb.ToolCallEnd):
            index = self._open(event.key, ToolCall)
            if index is not None:
                block = self._settle(index)
                if event.signature:
                    block.thought_signature = event.signature
                self._update(
                    AssistantMessageEvent(type="toolcall_end", content_index=index, tool_call=block.to_wire())
                )
        elif isinstance(event, pb.UsageUpdate):
            self.message.usage = event.usage
            self._on_usage(self.message.usage)
        elif isinstance(event, pb.OpaqueBlock):
            kept = ProviderBlock(position=len(self.message.content), data=event.data)
            self.message.provider_blocks = [*(self.message.provider_blocks or []), kept]
        elif isinstance(event, pb.Done):
            self.close_open_blocks()
            self.message.stop_reason = event.stop_reason
            if event.response_id:
                self.message.response_id = event.response_id
            if event.end_turn is not None:
                self.message.end_turn = event.end_turn
            self.paused = event.paused
            self._update(AssistantMessageEvent(type="done", reason=event.stop_reason))

    def _settle(self, index: int) -> Any:
        """Write a block's buffered deltas into it and mark it closed."""
        self._closed.add(index)
        block = self.message.content[index]
        joined = "".join(self._buffers[index])
        if isinstance(block, TextContent):
            block.text = joined
        elif isinstance(block, ThinkingContent):
            block.thinking = joined
        elif isinstance(block, ToolCall):
            block.arguments, error = parse_tool_arguments(joined)
            if error is not None:
                block.unreadable_arguments(error)
        return block

    def close_open_blocks(self) -> None:
        """Settle blocks whose end never arrived (abort, error) so the final message is complete."""
        for index in self._buffers:
            if index not in self._closed:
                self._settle(index)

    def fail(self, reason: str, error_message: str | None, kind: ErrorKind | None = None) -> None:
        self.close_open_blocks()
        self.message.stop_reason = reason  # type: ignore[assignment]
        self.message.error_message = error_message
        self.message.error_kind = kind
        self._update(AssistantMessageEvent(type="error", reason=reason, error_message=error_message))
