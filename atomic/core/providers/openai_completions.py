"""OpenAI Chat Completions (and every OpenAI-compatible server): `POST …/chat/completions`, streamed.

Servers differ in small ways; compat switches select the variant (`atomic.core.models.compat`
infers them from the provider and base URL, `model.compat` overrides; docs/models.md lists
them): `supportsDeveloperRole`, `supportsReasoningEffort`, `maxTokensField`,
`supportsUsageInStreaming`, `requiresToolResultName`, `thinkingFormat`, `replayReasoning` and
`requiresReasoningContentOnAssistantMessages`. The request goes out over plain HTTP
(`openai_http.py`: URL, headers, errors as the `openai` SDK built them) and the SSE lines are
mapped in `completions_stream`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.models.compat import completions_compat
from atomic.core.providers.base import ProviderEvent, StreamRequest
from atomic.core.providers.completions_stream import CompletionsStream
from atomic.core.providers.history import from_same_model, normalize_history
from atomic.core.providers.http_stream import HttpCall, stream_http
from atomic.core.providers.openai_http import OPENAI, OpenAIEndpoint, http_error
from atomic.core.providers.thinking_params import completions_params, default_max_tokens

API = "openai-completions"

_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


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


def chat_tool_id(tool_call_id: str, compat: dict[str, Any]) -> str:
    """A tool call id the server accepts (the same for the call and its result).

    Responses ids (`call_x|fc_y`) become their call id: chat servers reject `|` and long ids.
    Mistral takes only ids of exactly 9 letters and digits: other ids (from another provider,
    earlier in the session) are mapped to 9 hex digits of their hash.
    """
    if "|" in tool_call_id:
        tool_call_id = _UNSAFE_ID_CHARS.sub("_", tool_call_id.partition("|")[0])[:40] or "call"
    if compat.get("requiresMistralToolIds") and not (len(tool_call_id) == 9 and tool_call_id.isalnum()):
        return hashlib.sha256(tool_call_id.encode("utf-8")).hexdigest()[:9]
    return tool_call_id


def _replay_fields(block: ThinkingContent) -> tuple[str | None, list[Any]]:
    """(reasoning field name, reasoning_details) recorded in a thinking block's signature."""
    signature = block.thinking_signature
    if not signature:
        return None, []
    if not signature.startswith("{"):
        return signature, []
    try:
        data = json.loads(signature)
    except ValueError:
        return None, []
    if not isinstance(data, dict):
        return None, []
    field = data.get("field")
    details = data.get("reasoning_details")
    return (field if isinstance(field, str) else None), (details if isinstance(details, list) else [])


def _reasoning_replay(
    message: AssistantMessage, request: StreamRequest, compat: dict[str, Any], converted: dict[str, Any]
) -> None:
    """Send reasoning back where the server needs it (see docs/models.md, "Reasoning that goes back")."""
    model = request.model
    same_model = from_same_model(message, model.api, model.id, model.provider)
    thinking = [b for b in message.content if isinstance(b, ThinkingContent)] if same_model else []
    if thinking and compat.get("replayReasoning", True):
        field: str | None = None
        details: list[Any] = []
        for block in thinking:
            block_field, block_details = _replay_fields(block)
            field = field or block_field
            details.extend(block_details)
        text = "\n".join(b.thinking for b in thinking if b.thinking.strip())
        if field in ("reasoning_content", "reasoning", "reasoning_text") and text:
            converted[field] = text
        if details:
            converted["reasoning_details"] = details
    if (
        compat.get("requiresReasoningContentOnAssistantMessages")
        and model.reasoning
        and "reasoning_content" not in converted
    ):
        # DeepSeek rejects a thinking model's assistant message without the field (HTTP 400).
        converted["reasoning_content"] = "\n".join(b.thinking for b in thinking if b.thinking.strip())


def _assistant_message(
    message: AssistantMessage, request: StreamRequest, compat: dict[str, Any]
) -> dict[str, Any] | None:
    text = "".join(b.text for b in message.content if isinstance(b, TextContent))
    calls = [b for b in message.content if isinstance(b, ToolCall)]
    if not text and not calls:
        return None
    converted: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        converted["tool_calls"] = [
            {
                "id": chat_tool_id(call.id, compat),
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in calls
        ]
    _reasoning_replay(message, request, compat, converted)
    return converted


def convert_messages(request: StreamRequest) -> list[dict[str, Any]]:
    model = request.model
    compat = completions_compat(model)
    with_images = model.supports_images()
    converted: list[dict[str, Any]] = []
    if request.system_prompt:
        role = "developer" if compat.get("supportsDeveloperRole", True) else "system"
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
            assistant = _assistant_message(message, request, compat)
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
                "tool_call_id": chat_tool_id(message.tool_call_id, compat),
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
    compat = completions_compat(model)
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


# ----------------------------------------------------------------------------- provider


class OpenAICompletionsProvider:
    """`Provider` for api "openai-completions" (and, with Azure's endpoint and stream, Azure's)."""

    def __init__(
        self, endpoint: OpenAIEndpoint = OPENAI, new_state: Callable[[], CompletionsStream] = CompletionsStream
    ) -> None:
        self._endpoint = endpoint
        self._new_state = new_state

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        endpoint = self._endpoint

        async def call() -> HttpCall:
            return endpoint.call(request, "chat/completions", build_body(request))

        new_state = self._new_state
        return stream_http(request, call, lambda _response: new_state(), http_error, endpoint.secret(request))
