"""Anthropic Messages stream events (decoded JSON objects) -> provider events.

Text, thinking (signed or redacted) and tool_use blocks become the message's content. Every other
block type (server_tool_use, web_search_tool_result, code execution results, mcp_tool_use and
mcp_tool_result, compaction, ...) is rebuilt from its start and deltas and handed on whole as an
`OpaqueBlock`, so the provider can send it back (a `pause_turn` continuation needs it).

Stop reasons: `end_turn`, `stop_sequence` and `pause_turn` are normal stops (pause also asks the
loop to continue); `max_tokens` and `model_context_window_exceeded` are "length"; `tool_use` is
"toolUse"; `refusal` ends the turn as an error of kind `refusal` whose text says the model refused, with the
server's explanation when it sent one.
"""

from __future__ import annotations

import json
from typing import Any

from atomic.core.messages import Usage
from atomic.core.providers.base import (
    Done,
    OpaqueBlock,
    ProviderError,
    ProviderEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageUpdate,
)
from atomic.core.providers.errors import classify_status, stream_ended_early
from atomic.core.providers.sse import parse_json

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}

_USAGE_FIELDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_input_tokens"),
    ("cache_write", "cache_creation_input_tokens"),
)

_NONE: list[ProviderEvent] = []


def refusal_text(details: Any) -> str:
    """What the user reads when the model refused (`stop_reason: "refusal"`)."""
    text = "The model refused to answer this request"
    if isinstance(details, dict):
        explanation = details.get("explanation")
        category = details.get("category")
        if isinstance(category, str) and category:
            text += f" (category: {category})"
        if isinstance(explanation, str) and explanation:
            return f"{text}: {explanation}"
    return text + "."


def stream_error(error: Any) -> ProviderError:
    """An `error` event sent in place of the rest of the stream (e.g. overloaded_error)."""
    if isinstance(error, dict):
        kind = error.get("type") or "error"
        text = f"{kind}: {error.get('message') or ''}".rstrip(": ")
    else:
        text = f"error: {error}"
    return ProviderError(text, kind=classify_status(None, text))


def undecodable(data: str, reason: str) -> ProviderError:
    return ProviderError(f"Could not decode the server's stream ({reason}): {data[:200]}", kind="fatal")


class _Opaque:
    """A block Atomic does not show, rebuilt from its start and deltas."""

    __slots__ = ("block", "partial_json")

    def __init__(self, block: dict[str, Any]) -> None:
        self.block = dict(block)
        self.partial_json: list[str] = []

    def add(self, delta: dict[str, Any]) -> None:
        kind = delta.get("type")
        if kind == "input_json_delta":
            self.partial_json.append(delta.get("partial_json") or "")
        elif kind == "citations_delta":
            self.block.setdefault("citations", []).append(delta.get("citation"))
        else:
            # text_delta, compaction_delta, signature_delta, ...: string fields grow, others are set.
            for name, value in delta.items():
                if name == "type":
                    continue
                current = self.block.get(name)
                self.block[name] = current + value if isinstance(current, str) and isinstance(value, str) else value

    def finish(self) -> dict[str, Any]:
        text = "".join(self.partial_json)
        if text.strip():
            self.block["input"] = json.loads(text)
        return self.block


class AnthropicStreamState:
    """Maps one response's stream events to provider events, in order."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.response_id: str | None = None
        self.stop_reason: str | None = None
        self.stop_details: Any = None
        self.finished = False
        self.kinds: dict[int, str] = {}  # open block index -> "text" | "thinking" | "tool" | "opaque"
        self.signatures: dict[int, str] = {}
        self.redacted: set[int] = set()
        self.tool_inputs: dict[int, Any] = {}  # input given whole in content_block_start
        self.tool_streamed: set[int] = set()
        self.opaque: dict[int, _Opaque] = {}

    def feed(self, data: str) -> list[ProviderEvent]:
        """Events for one SSE event's data."""
        try:
            event = parse_json(data)
        except ValueError as exc:
            raise undecodable(data, "invalid JSON") from exc
        if event.__class__ is not dict:
            raise undecodable(data, "not an event object")
        try:
            return self.handle(event)
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise undecodable(data, f"unexpected {type(exc).__name__}: {exc}") from exc

    def handle(self, event: dict[str, Any]) -> list[ProviderEvent]:
        kind = event.get("type")
        if kind == "content_block_delta":  # the hot path
            index = event["index"]
            delta = event["delta"]
            delta_type = delta.get("type")
            block = self.kinds.get(index)
            if delta_type == "text_delta" and block == "text":
                return [TextDelta(str(index), delta["text"])]
            return self._block_delta(index, block, delta_type, delta)
        if kind == "content_block_start":
            return self._block_start(event["index"], event["content_block"])
        if kind == "content_block_stop":
            return self._block_stop(event["index"])
        if kind == "message_start":
            message = event.get("message") or {}
            self.response_id = message.get("id")
            return self._apply_usage(message.get("usage"))
        if kind == "message_delta":
            delta = event.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            if delta.get("stop_details") is not None:
                self.stop_details = delta["stop_details"]
            return self._apply_usage(event.get("usage"))
        if kind == "message_stop":
            self.finished = True
        elif kind == "error":
            raise stream_error(event.get("error"))
        return _NONE  # ping and event types added later

    def _apply_usage(self, raw: Any) -> list[ProviderEvent]:
        if not isinstance(raw, dict):
            return _NONE
        usage = self.usage
        for field, key in _USAGE_FIELDS:
            value = raw.get(key)
            if isinstance(value, int):
                setattr(usage, field, value)
        # Anthropic's input_tokens already excludes cached tokens: no subtraction.
        usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
        return [UsageUpdate(usage=usage.model_copy(deep=True))]

    def _block_start(self, index: int, block: dict[str, Any]) -> list[ProviderEvent]:
        key = str(index)
        block_type = block.get("type")
        if block_type == "text":
            self.kinds[index] = "text"
            text = block.get("text")
            return [TextStart(key), TextDelta(key, text)] if text else [TextStart(key)]
        if block_type == "thinking":
            self.kinds[index] = "thinking"
            self.signatures[index] = block.get("signature") or ""
            thinking = block.get("thinking")
            return [ThinkingStart(key), ThinkingDelta(key, thinking)] if thinking else [ThinkingStart(key)]
        if block_type == "redacted_thinking":
            self.kinds[index] = "thinking"
            self.redacted.add(index)
            self.signatures[index] = block.get("data") or ""
            return [ThinkingStart(key)]
        if block_type == "tool_use":
            self.kinds[index] = "tool"
            self.tool_inputs[index] = block.get("input")
            return [ToolCallStart(key, id=block["id"], name=block["name"])]
        self.kinds[index] = "opaque"
        self.opaque[index] = _Opaque(block)
        return _NONE

    def _block_delta(self, index: int, block: str | None, delta_type: Any, delta: dict[str, Any]) -> list[ProviderEvent]:
        key = str(index)
        if block == "thinking":
            if delta_type == "thinking_delta":
                return [ThinkingDelta(key, delta["thinking"])] if delta["thinking"] else _NONE
            if delta_type == "signature_delta":
                self.signatures[index] = self.signatures.get(index, "") + delta["signature"]
        elif block == "tool":
            if delta_type == "input_json_delta" and delta["partial_json"]:
                self.tool_streamed.add(index)
                return [ToolCallDelta(key, delta["partial_json"])]
        elif block == "opaque":
            self.opaque[index].add(delta)
        # Deltas Atomic does not keep (citations on a text block) or for unknown blocks: skipped.
        return _NONE

    def _block_stop(self, index: int) -> list[ProviderEvent]:
        key = str(index)
        kind = self.kinds.pop(index, None)
        if kind == "text":
            return [TextEnd(key)]
        if kind == "thinking":
            signature = self.signatures.pop(index, "") or None
            return [ThinkingEnd(key, signature=signature, redacted=index in self.redacted)]
        if kind == "tool":
            given = self.tool_inputs.pop(index, None)
            # Some proxies send the whole input up front and no deltas.
            if index not in self.tool_streamed and given:
                return [ToolCallDelta(key, json.dumps(given)), ToolCallEnd(key)]
            return [ToolCallEnd(key)]
        if kind == "opaque":
            return [OpaqueBlock(self.opaque.pop(index).finish())]
        return _NONE

    def finish(self) -> list[ProviderEvent]:
        """The closing events once the body ended; raises when the response did not finish."""
        if not self.finished or self.stop_reason is None:
            raise stream_ended_early("no message_stop" if not self.finished else "no stop_reason")
        if self.stop_reason == "refusal":
            raise ProviderError(refusal_text(self.stop_details), kind="refusal")
        stop = _STOP_REASONS.get(self.stop_reason, "stop")
        return [Done(stop_reason=stop, response_id=self.response_id, paused=self.stop_reason == "pause_turn")]  # type: ignore[arg-type]
