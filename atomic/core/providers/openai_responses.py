"""OpenAI Responses API: `POST …/responses` with `stream: true`, over plain HTTP (`openai_http.py`).

Requests are stateless (`store: false`). Reasoning comes back as summaries or reasoning text
(thinking blocks) plus encrypted content; the reasoning item is kept as the thinking signature
(JSON) so it can be replayed to the same model on the next call. Tool call ids are
`call_id|item_id`. The SSE lines are mapped in `responses_stream`.
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
    UserMessage,
)
from atomic.core.providers.base import ProviderEvent, StreamRequest
from atomic.core.providers.history import from_same_model, normalize_history
from atomic.core.providers.http_stream import HttpCall, stream_http
from atomic.core.providers.openai_http import OPENAI, OpenAIEndpoint, http_error
from atomic.core.providers.responses_stream import ResponsesStream
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
    """The reasoning item to send back, or None when the server could not use it.

    With `store: false` the server keeps nothing: an item is sent back with its
    `encrypted_content`, or (DeepSeek) with its `reasoning_text` content. An item with neither
    would only make OpenAI answer 404 "Item with id 'rs_…' not found", so it is never sent.
    """
    if not block.thinking_signature:
        return None
    try:
        item = json.loads(block.thinking_signature)
    except ValueError:
        return None
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    replay: dict[str, Any] = {"type": "reasoning", "summary": item.get("summary") or []}
    if item.get("id"):
        replay["id"] = item["id"]
    if item.get("encrypted_content"):
        replay["encrypted_content"] = item["encrypted_content"]
        return replay
    content = item.get("content")
    if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "reasoning_text" for p in content):
        replay["content"] = [p for p in content if isinstance(p, dict) and p.get("type") == "reasoning_text"]
        return replay
    return None


def _assistant_items(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    # The api of the model asked (openai-responses, or the Codex endpoint that speaks the same items).
    same_model = from_same_model(message, request.model.api, request.model.id, request.model.provider)
    reasoning = (
        [_reasoning_item(b) for b in message.content if isinstance(b, ThinkingContent)] if same_model else []
    )
    # An encrypted reasoning item must be followed by the very items (same ids) it produced; without
    # one, item ids would name items the server never stored.
    keep_ids = any(item and "encrypted_content" in item for item in reasoning)
    items: list[dict[str, Any]] = []
    # Server tool items (web search, MCP...) go back at their place, to the model that produced them.
    kept = sorted(message.provider_blocks or [], key=lambda b: b.position) if same_model else []
    next_kept = 0
    for position, block in enumerate(message.content):
        while next_kept < len(kept) and kept[next_kept].position <= position:
            items.append(kept[next_kept].data)
            next_kept += 1
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
    items.extend(block.data for block in kept[next_kept:])
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
    """The JSON body (every key a documented Responses API parameter)."""
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
    if model.reasoning:
        # Nothing is stored server-side (store: false): reasoning only survives to the next call as
        # encrypted content, even when the level is off and the model reasons anyway.
        body["include"] = ["reasoning.encrypted_content"]
    if request.web_search:
        # The Responses API's hosted search; the sources are asked for so the transcript can name them.
        body.setdefault("tools", []).append({"type": "web_search"})
        body["include"] = [*body.get("include", []), "web_search_call.action.sources"]
    return body


# ----------------------------------------------------------------------------- provider


class OpenAIResponsesProvider:
    """`Provider` for api "openai-responses" (and, with Azure's endpoint, Azure's)."""

    def __init__(self, endpoint: OpenAIEndpoint = OPENAI) -> None:
        self._endpoint = endpoint

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        endpoint = self._endpoint

        async def call() -> HttpCall:
            return endpoint.call(request, "responses", build_body(request))

        return stream_http(request, call, lambda _response: ResponsesStream(), http_error, endpoint.secret(request))
