"""OpenAI Responses API through the `openai` SDK (`client.responses.create(stream=True)`).

Requests are stateless (`store: false`). Reasoning comes back as summaries (thinking blocks)
plus encrypted content; the whole reasoning item is kept as the thinking signature (JSON) so
it can be replayed to the same model on the next call. Tool call ids are `call_id|item_id`.
"""

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
from atomic.core.providers.errors import classify_error, classify_status, stream_ended_early
from atomic.core.providers.history import from_same_model, normalize_history
from atomic.core.providers.openai_completions import make_openai_client
from atomic.core.providers.streaming import close_quietly
from atomic.core.providers.thinking_params import default_max_tokens, responses_params

API = "openai-responses"


# ----------------------------------------------------------------------------- request building


def split_tool_id(tool_call_id: str) -> tuple[str, str | None]:
    """`call_id|item_id` -> (call_id, item_id); foreign ids are used whole as the call id."""
    call_id, _, item_id = tool_call_id.partition("|")
    return call_id, item_id or None


def _image_input(image: ImageContent) -> dict[str, Any]:
    return {
        "type": "input_image",
        "image_url": f"data:{image.mime_type};base64,{image.data}",
        "detail": "auto",
    }


def _user_parts(content: str | list[Any], with_images: bool) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "input_text", "text": content}] if content else []
    parts: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent) and block.text:
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageContent) and with_images:
            parts.append(_image_input(block))
    return parts


def _reasoning_item(block: ThinkingContent) -> dict[str, Any] | None:
    if not block.thinking_signature:
        return None
    try:
        item = json.loads(block.thinking_signature)
    except ValueError:
        return None
    return item if isinstance(item, dict) and item.get("type") == "reasoning" else None


def _assistant_items(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    same_model = from_same_model(message, API, request.model.id, request.model.provider)
    reasoning = (
        [_reasoning_item(b) for b in message.content if isinstance(b, ThinkingContent)] if same_model else []
    )
    # A replayed reasoning item must be followed by the very items (same ids) it produced.
    keep_ids = any(reasoning)
    items: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ThinkingContent):
            item = _reasoning_item(block) if same_model else None
            if item:
                items.append(item)
        elif isinstance(block, TextContent):
            if not block.text:
                continue
            text_item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
            }
            if keep_ids and block.text_signature:
                text_item["id"] = block.text_signature
            items.append(text_item)
        elif isinstance(block, ToolCall):
            call_id, item_id = split_tool_id(block.id)
            call_item: dict[str, Any] = {
                "type": "function_call",
                "call_id": call_id,
                "name": block.name,
                "arguments": json.dumps(block.arguments),
            }
            if keep_ids and item_id:
                call_item["id"] = item_id
            items.append(call_item)
    return items


def _tool_output(message: ToolResultMessage, with_images: bool) -> dict[str, Any]:
    call_id, _ = split_tool_id(message.tool_call_id)
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    images = [b for b in message.content if isinstance(b, ImageContent)] if with_images else []
    output: Any = text or "(no output)"
    if images:
        output = ([{"type": "input_text", "text": text}] if text else []) + [_image_input(i) for i in images]
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def convert_input(request: StreamRequest) -> list[dict[str, Any]]:
    with_images = request.model.supports_images()
    items: list[dict[str, Any]] = []
    for message in normalize_history(request.messages):
        if isinstance(message, UserMessage):
            parts = _user_parts(message.content, with_images)
            if parts:
                items.append({"role": "user", "content": parts})
        elif isinstance(message, AssistantMessage):
            items.extend(_assistant_items(message, request))
        elif isinstance(message, ToolResultMessage):
            items.append(_tool_output(message, with_images))
    return items


def build_body(request: StreamRequest) -> dict[str, Any]:
    """Keyword arguments for `client.responses.create` (all are SDK parameters)."""
    model = request.model
    body: dict[str, Any] = {
        "model": model.id,
        "input": convert_input(request),
        "stream": True,
        "store": False,
        "max_output_tokens": default_max_tokens(model, request.max_tokens),
    }
    if request.system_prompt:
        body["instructions"] = request.system_prompt
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in request.tools
        ]
    if request.session_id:
        body["prompt_cache_key"] = request.session_id
    body.update(responses_params(model, request.thinking_level))
    return body


# ----------------------------------------------------------------------------- stream mapping


def usage_from_responses(raw: Any) -> Usage:
    input_tokens = getattr(raw, "input_tokens", 0) or 0
    output_tokens = getattr(raw, "output_tokens", 0) or 0
    details = getattr(raw, "input_tokens_details", None)
    cached = (getattr(details, "cached_tokens", 0) if details else 0) or 0
    return Usage(
        input=max(0, input_tokens - cached),
        output=output_tokens,
        cache_read=cached,
        total_tokens=input_tokens + output_tokens,
    )


def _dump(item: Any) -> dict[str, Any]:
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return dict(item) if isinstance(item, dict) else {}


class _StreamState:
    def __init__(self) -> None:
        self.response_id: str | None = None
        self.done: Done | None = None
        self.keys_by_index: dict[int, str] = {}
        self.kinds: dict[str, str] = {}  # key -> "reasoning" | "message" | "function_call"
        self.streamed_args: set[str] = set()
        self.saw_tool_call = False

    def _key(self, event: Any) -> str:
        item_id = getattr(event, "item_id", None)
        if item_id:
            return item_id
        return self.keys_by_index.get(getattr(event, "output_index", -1), "")

    def handle(self, event: Any) -> list[ProviderEvent]:
        kind = getattr(event, "type", "")
        if kind in ("response.created", "response.in_progress"):
            self.response_id = getattr(getattr(event, "response", None), "id", None) or self.response_id
        elif kind == "response.output_item.added":
            return self._item_added(event)
        elif kind == "response.output_item.done":
            return self._item_done(event)
        elif kind == "response.reasoning_summary_part.added":
            if (getattr(event, "summary_index", 0) or 0) > 0:
                return [ThinkingDelta(self._key(event), "\n\n")]  # separate summary paragraphs
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            key = self._key(event)
            if self.kinds.get(key) == "reasoning" and event.delta:
                return [ThinkingDelta(key, event.delta)]
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            key = self._key(event)
            if self.kinds.get(key) == "message" and event.delta:
                return [TextDelta(key, event.delta)]
        elif kind == "response.function_call_arguments.delta":
            key = self._key(event)
            if self.kinds.get(key) == "function_call" and event.delta:
                self.streamed_args.add(key)
                return [ToolCallDelta(key, event.delta)]
        elif kind in ("response.completed", "response.incomplete"):
            return self._completed(event.response)
        elif kind == "response.failed":
            raise _response_error(getattr(getattr(event, "response", None), "error", None))
        elif kind == "error":
            raise _response_error(event)
        return []

    def _item_added(self, event: Any) -> list[ProviderEvent]:
        item = event.item
        item_type = getattr(item, "type", None)
        key = getattr(item, "id", None) or f"item{event.output_index}"
        self.keys_by_index[event.output_index] = key
        if item_type == "reasoning":
            self.kinds[key] = "reasoning"
            return [ThinkingStart(key)]
        if item_type == "message":
            self.kinds[key] = "message"
            return [TextStart(key)]
        if item_type == "function_call":
            self.kinds[key] = "function_call"
            self.saw_tool_call = True
            tool_id = f"{item.call_id}|{item.id}" if getattr(item, "id", None) else item.call_id
            events: list[ProviderEvent] = [ToolCallStart(key, id=tool_id, name=item.name)]
            return events
        return []

    def _item_done(self, event: Any) -> list[ProviderEvent]:
        key = self.keys_by_index.get(event.output_index) or getattr(event.item, "id", "")
        kind = self.kinds.pop(key, None)
        item = event.item
        if kind == "reasoning":
            data = _dump(item)
            replay = {
                k: data[k] for k in ("type", "id", "summary", "encrypted_content") if data.get(k) is not None
            }
            return [ThinkingEnd(key, signature=json.dumps(replay))]
        if kind == "message":
            return [TextEnd(key, signature=getattr(item, "id", None))]
        if kind == "function_call":
            events: list[ProviderEvent] = []
            arguments = getattr(item, "arguments", "") or ""
            if key not in self.streamed_args and arguments:
                events.append(ToolCallDelta(key, arguments))  # server sent no argument deltas
            events.append(ToolCallEnd(key))
            return events
        return []

    def _completed(self, response: Any) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        self.response_id = getattr(response, "id", None) or self.response_id
        usage = getattr(response, "usage", None)
        if usage is not None:
            events.append(UsageUpdate(usage=usage_from_responses(usage)))
        status = getattr(response, "status", "completed")
        reason = getattr(getattr(response, "incomplete_details", None), "reason", None)
        if status == "incomplete" and reason == "max_output_tokens":
            stop = "length"
        elif self.saw_tool_call:
            stop = "toolUse"
        else:
            stop = "stop"
        self.done = Done(stop_reason=stop, response_id=self.response_id)  # type: ignore[arg-type]
        return events

    def finish(self) -> list[ProviderEvent]:
        if self.done is None:
            raise stream_ended_early("no response.completed")
        # Servers that skip output_item.done still get every block closed.
        events: list[ProviderEvent] = []
        for key, kind in self.kinds.items():
            if kind == "reasoning":
                events.append(ThinkingEnd(key))
            elif kind == "message":
                events.append(TextEnd(key))
            else:
                events.append(ToolCallEnd(key))
        self.kinds.clear()
        return [*events, self.done]


def _response_error(error: Any) -> ProviderError:
    code = getattr(error, "code", None) or ""
    message = getattr(error, "message", None) or "The response failed"
    text = f"{code}: {message}" if code else message
    return ProviderError(text, kind=classify_status(None, text))


# ----------------------------------------------------------------------------- provider


_WARM_EVENTS: list[dict[str, Any]] = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "r", "object": "response", "output": []}},
    {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
     "item": {"type": "message", "id": "m", "role": "assistant", "status": "in_progress", "content": []}},
    {"type": "response.output_text.delta", "sequence_number": 2, "item_id": "m", "output_index": 0,
     "content_index": 0, "delta": "", "logprobs": []},
    {"type": "response.reasoning_summary_text.delta", "sequence_number": 3, "item_id": "m", "output_index": 0,
     "summary_index": 0, "delta": ""},
    {"type": "response.function_call_arguments.delta", "sequence_number": 4, "item_id": "m", "output_index": 0,
     "delta": ""},
    {"type": "response.completed", "sequence_number": 5, "response": {"id": "r", "object": "response", "output": []}},
]


def warm_up() -> None:
    """Load what the first request needs, off the event loop (called from the warm-up thread): the
    SDK builds its stream-event models on first use, which takes seconds."""
    from openai import AsyncOpenAI
    from openai._models import construct_type
    from openai._utils import maybe_transform
    from openai.resources.responses import AsyncResponses  # noqa: F401 - loaded on first access otherwise
    from openai.types.responses import ResponseStreamEvent, response_create_params

    from atomic.core.providers.clients import import_http_stack, prebuild_http_client, warm_client

    import_http_stack()
    prebuild_http_client("openai")
    warm_client("openai", AsyncOpenAI)
    sample = {
        "model": "m", "stream": True, "instructions": "s", "store": False,
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "u"}]},
                  {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
                  {"type": "function_call_output", "call_id": "c", "output": "r"}],
        "tools": [{"type": "function", "name": "f", "description": "d", "parameters": {}, "strict": False}],
    }
    maybe_transform(sample, response_create_params.ResponseCreateParamsStreaming)
    for event in _WARM_EVENTS:
        construct_type(type_=ResponseStreamEvent, value=event)


class OpenAIResponsesProvider:
    """`Provider` for api "openai-responses"."""

    async def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        sdk_stream: Any = None
        try:
            client = make_openai_client(request)
            sdk_stream = await client.responses.create(**build_body(request))
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
