"""The Anthropic Messages request body built from Atomic's LLM messages.

Blocks the transcript does not show (server tool calls and results, compaction blocks) travel on
the assistant message as `provider_blocks` and go back at their place, to the model that produced
them only, like signed thinking. Consecutive assistant messages (a `pause_turn` and its
continuation) are sent as one assistant turn. Outside the turn being continued, a server tool call
whose result never came (a pause right after the call, then the user spoke) is left out with its
id's other half, because the API rejects an unanswered server tool call before a user message.
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
from atomic.core.providers.history import from_same_model, normalize_history, safe_tool_id
from atomic.core.providers.thinking_params import anthropic_params

API = "anthropic-messages"
CACHE_CONTROL = {"type": "ephemeral"}


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


def _visible_block(block: Any, replay_signed: bool) -> dict[str, Any] | None:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text} if block.text else None
    if isinstance(block, ThinkingContent):
        # Unsigned or foreign thinking cannot be verified by the API: drop it.
        if not replay_signed or not block.thinking_signature:
            return None
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.thinking_signature}
        return {"type": "thinking", "thinking": block.thinking, "signature": block.thinking_signature}
    if isinstance(block, ToolCall):
        return {"type": "tool_use", "id": safe_tool_id(block.id), "name": block.name, "input": block.arguments}
    return None


def _assistant_blocks(message: AssistantMessage, request: StreamRequest) -> list[dict[str, Any]]:
    same_model = from_same_model(message, request.model.api, request.model.id, request.model.provider)
    kept = sorted(message.provider_blocks or [], key=lambda b: b.position) if same_model else []
    blocks: list[dict[str, Any]] = []
    k = 0
    for position, block in enumerate(message.content):
        while k < len(kept) and kept[k].position <= position:
            blocks.append(dict(kept[k].data))
            k += 1
        converted = _visible_block(block, same_model)
        if converted is not None:
            blocks.append(converted)
    blocks.extend(dict(item.data) for item in kept[k:])
    return blocks


def _drop_unanswered_server_calls(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Server tool calls (server_tool_use, mcp_tool_use, ...) without their result in the same turn,
    and results without their call, are removed; client `tool_use` blocks are answered elsewhere."""
    calls = {b.get("id") for b in blocks if b.get("type") != "tool_use" and b.get("type", "").endswith("tool_use")}
    answered = {b.get("tool_use_id") for b in blocks if "tool_use_id" in b}
    kept: list[dict[str, Any]] = []
    for block in blocks:
        kind = block.get("type", "")
        if kind != "tool_use" and kind.endswith("tool_use") and block.get("id") not in answered:
            continue
        if "tool_use_id" in block and block["tool_use_id"] not in calls:
            continue
        kept.append(block)
    return kept


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
        previous = converted[-1] if converted else None
        if isinstance(message, UserMessage):
            blocks = _user_blocks(message.content)
            if blocks:
                converted.append({"role": "user", "content": blocks})
        elif isinstance(message, AssistantMessage):
            blocks = _assistant_blocks(message, request)
            if blocks and previous and previous["role"] == "assistant":
                previous["content"].extend(blocks)  # a paused turn and its continuation
            elif blocks:
                converted.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolResultMessage):
            block = _tool_result_block(message)
            # Consecutive results belong in one user message.
            if previous and previous["role"] == "user" and previous["content"][0]["type"] == "tool_result":
                previous["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
    for position, message in enumerate(converted):
        if message["role"] != "assistant":
            continue
        if position < len(converted) - 1:
            message["content"] = _drop_unanswered_server_calls(message["content"])
        else:
            _trim_trailing_text(message["content"])
    converted = [m for m in converted if m["content"]]
    for message in reversed(converted):
        if message["role"] == "user":
            message["content"][-1]["cache_control"] = dict(CACHE_CONTROL)
            break
    return converted


def _trim_trailing_text(blocks: list[dict[str, Any]]) -> None:
    """A conversation ending in an assistant turn (continuing a paused one) is rejected when that
    turn ends in whitespace."""
    if blocks and blocks[-1].get("type") == "text":
        text = blocks[-1]["text"].rstrip()
        if text:
            blocks[-1] = {**blocks[-1], "text": text}
        else:
            blocks.pop()


WEB_SEARCH_TOOL: dict[str, Any] = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


def build_params(request: StreamRequest) -> dict[str, Any]:
    """The JSON body for `POST /v1/messages` (without `stream`)."""
    model = request.model
    params: dict[str, Any] = {"model": model.id, "messages": convert_messages(request)}
    if request.system_prompt:
        params["system"] = [
            {"type": "text", "text": request.system_prompt, "cache_control": dict(CACHE_CONTROL)}
        ]
    tools: list[dict[str, Any]] = []
    if request.web_search:
        # Anthropic's server-side search: results and citations come back as blocks of the reply.
        tools.append(dict(WEB_SEARCH_TOOL))
    if request.tools:
        tools += [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in request.tools
        ]
    if tools:
        tools[-1]["cache_control"] = dict(CACHE_CONTROL)
        params["tools"] = tools
    params.update(
        anthropic_params(model, request.thinking_level, request.max_tokens, request.thinking_budgets)
    )
    if request.session_id:
        params["metadata"] = {"user_id": request.session_id}
    return params
