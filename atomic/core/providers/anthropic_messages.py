"""Anthropic Messages API through the official `anthropic` SDK (imported lazily)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from atomic.core.providers.base import (
    Done,
    ProviderEvent,
    StreamRequest,
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
from atomic.core.providers.clients import cached_client, import_http_stack, prebuild_http_client
from atomic.core.providers.errors import classify_error, stream_ended_early
from atomic.core.providers.history import from_same_model, normalize_history, safe_tool_id
from atomic.core.providers.streaming import close_quietly
from atomic.core.providers.thinking_params import anthropic_params

API = "anthropic-messages"
CACHE_CONTROL = {"type": "ephemeral"}

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "refusal": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
}


# ----------------------------------------------------------------------------- request building


def _image_block(image: ImageContent) -> dict[str, Any]:
    return {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}


def _user_blocks(content: str | list[Any]) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent):
            if block.text:  # Anthropic rejects empty text blocks
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageContent):
            blocks.append(_image_block(block))
    return blocks


def _assistant_blocks(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    replay_thinking = from_same_model(message, API, request.model.id, request.model.provider)
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ThinkingContent):
            # Unsigned or foreign thinking cannot be verified by the API: drop it.
            if not replay_thinking or not block.thinking_signature:
                continue
            if block.redacted:
                blocks.append({"type": "redacted_thinking", "data": block.thinking_signature})
            else:
                blocks.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.thinking_signature}
                )
        elif isinstance(block, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": safe_tool_id(block.id),
                    "name": block.name,
                    "input": block.arguments,
                }
            )
    return blocks


def _tool_result_block(message: ToolResultMessage) -> dict[str, Any]:
    content = _user_blocks(message.content)
    if not content:
        content = [{"type": "text", "text": "(no output)"}]
    return {
        "type": "tool_result",
        "tool_use_id": safe_tool_id(message.tool_call_id),
        "content": content,
        "is_error": message.is_error,
    }


def convert_messages(request: StreamRequest) -> list[dict[str, Any]]:
    """LLM messages -> Anthropic `messages`, with the cache breakpoint on the last user block."""
    converted: list[dict[str, Any]] = []
    for message in normalize_history(request.messages):
        if isinstance(message, UserMessage):
            blocks = _user_blocks(message.content)
            if blocks:
                converted.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, request)
            if blocks:
                converted.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            block = _tool_result_block(message)
            previous = converted[-1] if converted else None
            # Consecutive results belong in one user message.
            if previous and previous["role"] == "user" and previous["content"][0]["type"] == "tool_result":
                previous["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
    for message in reversed(converted):
        if message["role"] == "user":
            message["content"][-1]["cache_control"] = dict(CACHE_CONTROL)
            break
    return converted


def build_params(request: StreamRequest) -> dict[str, Any]:
    """The keyword arguments for `client.messages.create` (without `stream`)."""
    model = request.model
    params: dict[str, Any] = {"model": model.id, "messages": convert_messages(request)}
    if request.system_prompt:
        params["system"] = [
            {"type": "text", "text": request.system_prompt, "cache_control": dict(CACHE_CONTROL)}
        ]
    if request.tools:
        tools = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
        tools[-1]["cache_control"] = dict(CACHE_CONTROL)
        params["tools"] = tools
    params.update(
        anthropic_params(model, request.thinking_level, request.max_tokens, request.thinking_budgets)
    )
    if request.session_id:
        params["metadata"] = {"user_id": request.session_id}
    return params


# ----------------------------------------------------------------------------- stream mapping


class _StreamState:
    """Maps raw Anthropic stream events to provider events."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.response_id: str | None = None
        self.stop_reason: str | None = None
        self.finished = False
        self.kinds: dict[int, str] = {}  # content-block index -> "text" | "thinking" | "tool"
        self.signatures: dict[int, str] = {}
        self.redacted: set[int] = set()
        self.tool_inputs: dict[int, Any] = {}  # input given in content_block_start
        self.tool_streamed: set[int] = set()

    def _apply_usage(self, raw: Any) -> UsageUpdate | None:
        if raw is None:
            return None
        for field, attr in (
            ("input", "input_tokens"),
            ("output", "output_tokens"),
            ("cache_read", "cache_read_input_tokens"),
            ("cache_write", "cache_creation_input_tokens"),
        ):
            value = getattr(raw, attr, None)
            if isinstance(value, int):
                setattr(self.usage, field, value)
        u = self.usage
        u.total_tokens = u.input + u.output + u.cache_read + u.cache_write
        return UsageUpdate(usage=u.model_copy(deep=True))

    def handle(self, event: Any) -> list[ProviderEvent]:
        kind = getattr(event, "type", None)
        out: list[ProviderEvent] = []
        if kind == "message_start":
            self.response_id = getattr(event.message, "id", None)
            update = self._apply_usage(getattr(event.message, "usage", None))
            if update:
                out.append(update)
        elif kind == "content_block_start":
            out.extend(self._block_start(event.index, event.content_block))
        elif kind == "content_block_delta":
            out.extend(self._block_delta(event.index, event.delta))
        elif kind == "content_block_stop":
            out.extend(self._block_stop(event.index))
        elif kind == "message_delta":
            self.stop_reason = getattr(event.delta, "stop_reason", None) or self.stop_reason
            update = self._apply_usage(getattr(event, "usage", None))
            if update:
                out.append(update)
        elif kind == "message_stop":
            self.finished = True
        return out

    def _block_start(self, index: int, block: Any) -> list[ProviderEvent]:
        key = str(index)
        block_type = getattr(block, "type", None)
        if block_type == "text":
            self.kinds[index] = "text"
            events: list[ProviderEvent] = [TextStart(key)]
            if getattr(block, "text", ""):
                events.append(TextDelta(key, block.text))
            return events
        if block_type == "thinking":
            self.kinds[index] = "thinking"
            self.signatures[index] = getattr(block, "signature", "") or ""
            events = [ThinkingStart(key)]
            if getattr(block, "thinking", ""):
                events.append(ThinkingDelta(key, block.thinking))
            return events
        if block_type == "redacted_thinking":
            self.kinds[index] = "thinking"
            self.redacted.add(index)
            self.signatures[index] = getattr(block, "data", "") or ""
            return [ThinkingStart(key)]
        if block_type == "tool_use":
            self.kinds[index] = "tool"
            self.tool_inputs[index] = getattr(block, "input", None)
            return [ToolCallStart(key, id=block.id, name=block.name)]
        return []  # server tools, citations etc. are not part of the transcript

    def _block_delta(self, index: int, delta: Any) -> list[ProviderEvent]:
        key = str(index)
        delta_type = getattr(delta, "type", None)
        kind = self.kinds.get(index)
        if delta_type == "text_delta" and kind == "text":
            return [TextDelta(key, delta.text)]
        if delta_type == "thinking_delta" and kind == "thinking":
            return [ThinkingDelta(key, delta.thinking)]
        if delta_type == "signature_delta" and kind == "thinking":
            self.signatures[index] = self.signatures.get(index, "") + delta.signature
        elif delta_type == "input_json_delta" and kind == "tool":
            if delta.partial_json:
                self.tool_streamed.add(index)
                return [ToolCallDelta(key, delta.partial_json)]
        return []

    def _block_stop(self, index: int) -> list[ProviderEvent]:
        key = str(index)
        kind = self.kinds.pop(index, None)
        if kind == "text":
            return [TextEnd(key)]
        if kind == "thinking":
            return [
                ThinkingEnd(
                    key, signature=self.signatures.pop(index, "") or None, redacted=index in self.redacted
                )
            ]
        if kind == "tool":
            events: list[ProviderEvent] = []
            given = self.tool_inputs.pop(index, None)
            # Some proxies send the whole input up front and no deltas.
            if index not in self.tool_streamed and given:
                events.append(ToolCallDelta(key, json.dumps(given)))
            events.append(ToolCallEnd(key))
            return events
        return []

    def finish(self) -> list[ProviderEvent]:
        if not self.finished or self.stop_reason is None:
            raise stream_ended_early("no message_stop" if not self.finished else "no stop_reason")
        stop = _STOP_REASONS.get(self.stop_reason, "stop")
        return [Done(stop_reason=stop, response_id=self.response_id, end_turn=self.stop_reason == "end_turn")]  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- provider


def warm_up() -> None:
    """Load what the first request needs, off the event loop (called from the warm-up thread)."""
    import anthropic.resources.messages  # noqa: F401 - the client loads its resources on first access

    import_http_stack()
    prebuild_http_client("anthropic")


class AnthropicMessagesProvider:
    """`Provider` for api "anthropic-messages"."""

    async def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        sdk_stream: Any = None
        try:
            from anthropic import AsyncAnthropic

            options: dict[str, Any] = {"max_retries": 0, "default_headers": dict(request.headers)}
            options.update(_auth_options(request))
            if request.model.base_url:
                options["base_url"] = request.model.base_url
            if request.timeout_s is not None:
                options["timeout"] = request.timeout_s
            # One client per key / base URL / headers, sharing a connection pool (never close it).
            client = cached_client("anthropic", options, AsyncAnthropic)
            sdk_stream = await client.messages.create(**build_params(request), stream=True)
            state = _StreamState()
            async for event in sdk_stream:
                for out in state.handle(event):
                    yield out
            for out in state.finish():
                yield out
        except Exception as exc:  # CancelledError / GeneratorExit are BaseException: they pass through
            raise classify_error(exc, api_key=request.api_key) from exc
        finally:
            await close_quietly(sdk_stream)


def _auth_options(request: StreamRequest) -> dict[str, Any]:
    key = request.api_key or ""
    if key.startswith("sk-ant-oat"):
        # Claude subscription (OAuth) tokens authenticate as a bearer token, not x-api-key.
        return {"auth_token": key, "api_key": None}
    # An empty key still lets header-only auth (a proxy's Authorization header) through.
    return {"api_key": key}
