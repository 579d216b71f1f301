"""OpenAI Chat Completions (and every OpenAI-compatible server) through the `openai` SDK.

Servers differ in small ways; `model.compat` switches select the variant:
`supportsDeveloperRole`, `supportsReasoningEffort`, `maxTokensField`,
`supportsUsageInStreaming`, `requiresToolResultName` and `thinkingFormat`
(see `thinking_params.completions_params`).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from atomic.core.model_types import Model
from atomic.core.providers.base import (
    Done,
    ProviderError,
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
from atomic.core.providers.clients import cached_client, import_http_stack, prebuild_http_client, warm_client
from atomic.core.providers.errors import classify_error, classify_status, stream_ended_early
from atomic.core.providers.history import normalize_history
from atomic.core.providers.thinking_params import completions_params, default_max_tokens

API = "openai-completions"

# Keys the SDK knows as keyword arguments; every other body key goes through extra_body.
_SDK_KEYS = frozenset(
    {
        "model",
        "messages",
        "stream",
        "stream_options",
        "max_tokens",
        "max_completion_tokens",
        "tools",
        "reasoning_effort",
    }
)

_FINISH_REASONS = {"stop": "stop", "length": "length", "tool_calls": "toolUse", "function_call": "toolUse"}

# Field names servers use for streamed reasoning text.
_REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")


def _compat(model: Model) -> dict[str, Any]:
    return model.compat or {}


def _image_part(image: ImageContent) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}


def _user_content(content: str | list[Any], with_images: bool) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    images = [b for b in content if isinstance(b, ImageContent)] if with_images else []
    text = "".join(b.text for b in content if isinstance(b, TextContent))
    if not images:
        # Plain strings are understood by every compatible server; part lists are not.
        return text
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": b.text} for b in content if isinstance(b, TextContent)
    ]
    parts.extend(_image_part(image) for image in images)
    return parts


def _assistant_message(message: AssistantMessage) -> dict[str, Any] | None:
    # Thinking is not replayed: chat completions has no field for it.
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    if not text and not calls:
        return None
    converted: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        converted["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in calls
        ]
    return converted


def convert_messages(request: StreamRequest) -> list[dict[str, Any]]:
    model = request.model
    compat = _compat(model)
    with_images = model.supports_images()
    converted: list[dict[str, Any]] = []
    if request.system_prompt:
        role = (
            "developer"
            if compat.get("supportsDeveloperRole", "api.openai.com" in model.base_url)
            else "system"
        )
        converted.append({"role": role, "content": request.system_prompt})

    pending_images: list[ImageContent] = []
    for message in normalize_history(request.messages):
        if not isinstance(message, ToolResultMessage) and pending_images:
            converted.append(_tool_images_message(pending_images))
            pending_images = []
        if isinstance(message, UserMessage):
            content = _user_content(message.content, with_images)
            if content:
                converted.append({"role": "user", "content": content})
        elif isinstance(message, AssistantMessage):
            assistant = _assistant_message(message)
            if assistant:
                converted.append(assistant)
        elif isinstance(message, ToolResultMessage):
            text = "".join(b.text for b in message.content if isinstance(b, TextContent))
            images = [b for b in message.content if isinstance(b, ImageContent)]
            if images and not with_images:
                text += "\n(image omitted: the model does not accept images)"
            elif images:
                # Tool messages cannot carry images: they follow in a user message.
                pending_images.extend(images)
                text += "\n(see attached image)" if text else "(see attached image)"
            tool_message: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": text or "(no output)",
            }
            if compat.get("requiresToolResultName"):
                tool_message["name"] = message.tool_name
            converted.append(tool_message)
    if pending_images:
        converted.append(_tool_images_message(pending_images))
    return converted


def _tool_images_message(images: list[ImageContent]) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": "Attached image(s) from tool result:"}]
    parts.extend(_image_part(image) for image in images)
    return {"role": "user", "content": parts}


def build_body(request: StreamRequest) -> dict[str, Any]:
    """The full JSON body (as the server will see it)."""
    model = request.model
    compat = _compat(model)
    body: dict[str, Any] = {"model": model.id, "messages": convert_messages(request), "stream": True}
    if compat.get("supportsUsageInStreaming", True):
        body["stream_options"] = {"include_usage": True}
    body[compat.get("maxTokensField", "max_completion_tokens")] = default_max_tokens(
        model, request.max_tokens
    )
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in request.tools
        ]
    body.update(completions_params(model, request.thinking_level))
    return body


def sdk_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """Split the body into SDK keyword arguments plus `extra_body` for non-standard keys."""
    arguments = {k: v for k, v in body.items() if k in _SDK_KEYS}
    extra = {k: v for k, v in body.items() if k not in _SDK_KEYS}
    if extra:
        arguments["extra_body"] = extra
    return arguments


# ----------------------------------------------------------------------------- stream mapping


def usage_from_openai(raw: Any) -> Usage:
    prompt = getattr(raw, "prompt_tokens", 0) or 0
    completion = getattr(raw, "completion_tokens", 0) or 0
    details = getattr(raw, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", 0) if details else 0) or 0
    cached = cached or getattr(raw, "prompt_cache_hit_tokens", 0) or 0  # DeepSeek
    cache_write = (getattr(details, "cache_write_tokens", 0) if details else 0) or 0  # OpenRouter
    return Usage(
        input=max(0, prompt - cached - cache_write),
        output=completion,
        cache_read=cached,
        cache_write=cache_write,
        total_tokens=prompt + completion,
    )


class _StreamState:
    def __init__(self) -> None:
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.block_counter = 0
        self.open_block: tuple[str, str] | None = None  # (kind "text"|"thinking", key)
        self.tools: dict[int, tuple[str, str]] = {}  # choice tool index -> (key, tool call id)
        self.open_tools: list[str] = []
        self.saw_tool_call = False

    def _next_key(self, prefix: str) -> str:
        self.block_counter += 1
        return f"{prefix}{self.block_counter}"

    def _close_block(self) -> list[ProviderEvent]:
        if self.open_block is None:
            return []
        kind, key = self.open_block
        self.open_block = None
        return [TextEnd(key) if kind == "text" else ThinkingEnd(key)]

    def _append(self, kind: str, delta: str) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if self.open_block is None or self.open_block[0] != kind:
            events.extend(self._close_block())
            key = self._next_key(kind)
            self.open_block = (kind, key)
            events.append(TextStart(key) if kind == "text" else ThinkingStart(key))
        key = self.open_block[1]
        events.append(TextDelta(key, delta) if kind == "text" else ThinkingDelta(key, delta))
        return events

    def handle(self, chunk: Any) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        self.response_id = self.response_id or getattr(chunk, "id", None)
        for choice in getattr(chunk, "choices", None) or []:
            delta = getattr(choice, "delta", None)
            if delta is not None:
                events.extend(self._delta(delta))
            if getattr(choice, "finish_reason", None):
                self.finish_reason = choice.finish_reason
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            events.append(UsageUpdate(usage=usage_from_openai(usage)))
        return events

    def _delta(self, delta: Any) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for name in _REASONING_FIELDS:
            reasoning = getattr(delta, name, None)
            if isinstance(reasoning, str) and reasoning:
                events.extend(self._append("thinking", reasoning))
                break
        content = getattr(delta, "content", None)
        if content:
            events.extend(self._append("text", content))
        for call in getattr(delta, "tool_calls", None) or []:
            events.extend(self._tool_delta(call))
        return events

    def _tool_delta(self, call: Any) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        index = getattr(call, "index", None)
        index = index if isinstance(index, int) else len(self.tools)
        function = getattr(call, "function", None)
        call_id = getattr(call, "id", None)
        known = self.tools.get(index)
        # Some servers reuse index 0 for several complete calls: a new id means a new call.
        if known is None or (call_id and call_id != known[1]):
            events.extend(self._close_block())
            key = self._next_key("tool")
            tool_id = call_id or f"call_{uuid.uuid4().hex[:24]}"
            self.tools[index] = (key, tool_id)
            self.open_tools.append(key)
            self.saw_tool_call = True
            name = (getattr(function, "name", None) or "") if function else ""
            events.append(ToolCallStart(key, id=tool_id, name=name))
        key = self.tools[index][0]
        arguments = getattr(function, "arguments", None) if function else None
        if arguments:
            events.append(ToolCallDelta(key, arguments))
        return events

    def finish(self) -> list[ProviderEvent]:
        if self.finish_reason is None:
            raise stream_ended_early("no finish_reason")
        events = self._close_block()
        events.extend(ToolCallEnd(key) for key in self.open_tools)
        self.open_tools = []
        stop = _FINISH_REASONS.get(self.finish_reason, "stop")
        if self.saw_tool_call and stop == "stop":
            stop = "toolUse"  # some servers finish tool-calling turns with "stop"
        events.append(Done(stop_reason=stop, response_id=self.response_id))  # type: ignore[arg-type]
        return events


# ----------------------------------------------------------------------------- provider


def warm_up() -> None:
    """Load what the first request needs, off the event loop (called from the warm-up thread): the
    resource modules the client imports on first access, and the SDK's per-type request transform."""
    from openai import AsyncOpenAI
    from openai._utils import maybe_transform
    from openai.resources.chat.completions import AsyncCompletions  # noqa: F401
    from openai.types.chat import completion_create_params

    import_http_stack()
    prebuild_http_client("openai")
    warm_client("openai", AsyncOpenAI)
    sample = {
        "model": "m", "stream": True, "stream_options": {"include_usage": True},
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": [{"type": "text", "text": "u"}]},
                     {"role": "assistant", "content": "a", "tool_calls": [
                         {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                     {"role": "tool", "tool_call_id": "c", "content": "r"}],
        "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {}}}],
    }
    maybe_transform(sample, completion_create_params.CompletionCreateParamsStreaming)


def make_openai_client(request: StreamRequest) -> Any:
    from openai import AsyncOpenAI

    options: dict[str, Any] = {
        # Local servers (Ollama, llama.cpp) need no key, but the SDK insists on one.
        "api_key": request.api_key or "no-key",
        "max_retries": 0,
        "default_headers": dict(request.headers),
    }
    if request.model.base_url:
        options["base_url"] = request.model.base_url
    if request.timeout_s is not None:
        options["timeout"] = request.timeout_s
    # One client per key / base URL / headers, sharing a connection pool (never close it).
    return cached_client("openai", options, AsyncOpenAI)


class _Chunk:
    """Attribute access over a decoded JSON object (what `_StreamState` reads with getattr)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.__dict__.update(data)


_DONE = object()


def parse_sse_data(line: str) -> Any:
    """One SSE line -> a chunk, `_DONE`, or None for comments, blank and non-data lines."""
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if not data:
        return None
    if data == "[DONE]":
        return _DONE
    chunk = json.loads(data, object_hook=_Chunk)
    error = getattr(chunk, "error", None)
    if error is not None:
        message = getattr(error, "message", None) or str(error.__dict__ if hasattr(error, "__dict__") else error)
        code = getattr(error, "code", None)
        status = code if isinstance(code, int) else None
        raise ProviderError(str(message), kind=classify_status(status, str(message)), status=status)
    return chunk


class OpenAICompletionsProvider:
    """`Provider` for api "openai-completions"."""

    async def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        try:
            client = make_openai_client(request)
            # The SDK sends the request (auth, base URL, headers, status errors); the SSE lines are read
            # raw because building a pydantic chunk model per delta costs more than everything else.
            raw = client.chat.completions.with_streaming_response.create(**sdk_arguments(build_body(request)))
            async with raw as response:
                state = _StreamState()
                lines = response.iter_lines()
                async for line in lines:
                    chunk = parse_sse_data(line)
                    if chunk is None:
                        continue
                    if chunk is _DONE:
                        break
                    for event in state.handle(chunk):
                        yield event
                # Read to the end of the body (as the SDK does) so the connection goes back to the pool.
                async for _line in lines:
                    pass
            for event in state.finish():
                yield event
        except Exception as exc:  # CancelledError / GeneratorExit are BaseException: they pass through
            raise classify_error(exc, api_key=request.api_key) from exc
