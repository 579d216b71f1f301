"""The Bedrock Converse request body built from Atomic's LLM messages.

- Content blocks: `text`, `image` (base64 bytes), `toolUse`, `toolResult` and `reasoningContent`
  (`reasoningText` with its signature, or `redactedContent`). Signed reasoning goes back only to the
  model that produced it; redacted reasoning goes first in its turn, its data kept as the thinking
  block's signature; reasoning without a signature is not sent back.
- Server tool blocks (a `toolUse` of type `server_tool_use` and its `toolResult`, e.g. Nova's code
  interpreter) are kept as provider blocks and go back in place, to the same model.
- All tool results of a turn go back in the one user message that follows it.
- Cache points: Claude and Nova models get one after the system prompt and after the last user
  message; Claude also after the tools.
- Claude models take Anthropic's thinking parameters in `additionalModelRequestFields`.
"""

from __future__ import annotations

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
from atomic.core.providers.base import StreamRequest
from atomic.core.providers.history import from_same_model, normalize_history
from atomic.core.providers.thinking_params import anthropic_params, default_max_tokens

CACHE_POINT = {"cachePoint": {"type": "default"}}
_IMAGE_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp"}


def is_claude(model_id: str) -> bool:
    return "anthropic.claude" in model_id.lower() or model_id.lower().startswith("claude")


def supports_cache_points(model_id: str) -> bool:
    lowered = model_id.lower()
    return is_claude(model_id) or "amazon.nova" in lowered


def _image(image: ImageContent) -> dict[str, Any]:
    kind = _IMAGE_FORMATS.get(image.mime_type.lower(), image.mime_type.rpartition("/")[2] or "png")
    return {"image": {"format": kind, "source": {"bytes": image.data}}}


def _user_blocks(content: str | list[Any], with_images: bool) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}] if content.strip() else []
    blocks: list[dict[str, Any]] = []
    for block in content:
        if isinstance(block, TextContent) and block.text.strip():
            blocks.append({"text": block.text})
        elif isinstance(block, ImageContent) and with_images:
            blocks.append(_image(block))
    return blocks


def _reasoning_block(block: ThinkingContent) -> dict[str, Any] | None:
    if not block.thinking_signature:
        return None
    if block.redacted:
        return {"reasoningContent": {"redactedContent": block.thinking_signature}}
    return {"reasoningContent": {"reasoningText": {"text": block.thinking, "signature": block.thinking_signature}}}


def _assistant_blocks(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    model = request.model
    same_model = from_same_model(message, model.api, model.id, model.provider)
    kept = sorted(message.provider_blocks or [], key=lambda b: b.position) if same_model else []
    redacted: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []
    next_kept = 0
    for position, block in enumerate(message.content):
        while next_kept < len(kept) and kept[next_kept].position <= position:
            blocks.append(dict(kept[next_kept].data))
            next_kept += 1
        if isinstance(block, ThinkingContent):
            reasoning = _reasoning_block(block) if same_model else None
            if reasoning is not None:
                (redacted if block.redacted else blocks).append(reasoning)
        elif isinstance(block, TextContent):
            if block.text.strip():  # Bedrock rejects blank text blocks
                blocks.append({"text": block.text})
        elif isinstance(block, ToolCall):
            blocks.append({"toolUse": {"toolUseId": block.id, "name": block.name, "input": block.arguments}})
    blocks.extend(dict(item.data) for item in kept[next_kept:])
    return redacted + blocks


def _tool_result(message: ToolResultMessage, with_images: bool) -> dict[str, Any]:
    content: list[dict[str, Any]] = [
        {"text": b.text} for b in message.content if isinstance(b, TextContent) and b.text
    ]
    if with_images:
        content.extend(_image(b) for b in message.content if isinstance(b, ImageContent))
    return {
        "toolResult": {
            "toolUseId": message.tool_call_id,
            "content": content or [{"text": "(no output)"}],
            "status": "error" if message.is_error else "success",
        }
    }


def convert_messages(request: StreamRequest) -> list[dict[str, Any]]:
    with_images = request.model.supports_images()
    converted: list[dict[str, Any]] = []
    for message in normalize_history(request.messages):
        previous = converted[-1] if converted else None
        if isinstance(message, UserMessage):
            blocks = _user_blocks(message.content, with_images)
            if blocks and previous and previous["role"] == "user":
                previous["content"].extend(blocks)
            elif blocks:
                converted.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, request)
            if blocks and previous and previous["role"] == "assistant":
                previous["content"].extend(blocks)
            elif blocks:
                converted.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            block = _tool_result(message, with_images)
            if previous and previous["role"] == "user" and "toolResult" in previous["content"][0]:
                previous["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
    if supports_cache_points(request.model.id):
        for message in reversed(converted):
            if message["role"] == "user":
                message["content"].append(dict(CACHE_POINT))
                break
    return converted


def build_body(request: StreamRequest) -> dict[str, Any]:
    """The JSON body for `POST /model/<id>/converse-stream` (the model is in the URL)."""
    model = request.model
    cache = supports_cache_points(model.id)
    body: dict[str, Any] = {"messages": convert_messages(request)}
    if request.system_prompt:
        body["system"] = [{"text": request.system_prompt}, *([dict(CACHE_POINT)] if cache else [])]
    inference: dict[str, Any] = {"maxTokens": default_max_tokens(model, request.max_tokens)}
    if is_claude(model.id) and model.reasoning:
        params = anthropic_params(model, request.thinking_level, request.max_tokens, request.thinking_budgets)
        inference["maxTokens"] = params.pop("max_tokens")
        if params:
            body["additionalModelRequestFields"] = params
    body["inferenceConfig"] = inference
    if request.tools:
        tools: list[dict[str, Any]] = [
            {"toolSpec": {"name": t.name, "description": t.description, "inputSchema": {"json": t.parameters}}}
            for t in request.tools
        ]
        if is_claude(model.id):
            tools.append(dict(CACHE_POINT))
        body["toolConfig"] = {"tools": tools}
    else:
        used = _tool_names_used(body["messages"])
        if used:
            # Bedrock rejects toolUse and toolResult blocks without a toolConfig: declare the tools the
            # history used (a resumed session run with tools turned off).
            body["toolConfig"] = {"tools": [
                {"toolSpec": {"name": name, "description": name, "inputSchema": {"json": {"type": "object"}}}}
                for name in used
            ]}
    return body


def _tool_names_used(messages: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for message in messages:
        for block in message["content"]:
            use = block.get("toolUse")
            if isinstance(use, dict) and use.get("type") in (None, "tool_use") and use.get("name") not in names:
                names.append(str(use.get("name")))
    return names
