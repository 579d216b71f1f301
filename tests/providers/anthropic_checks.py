"""Is a Messages request body one the real API accepts?

Two layers: the official SDK's own request types (`anthropic.types.beta`, validated with pydantic,
so every block has the fields and types the API schema requires), and the conversation rules the
API enforces on top (the 400s a coding agent meets: tool results right after their calls, no empty
text, signed thinking, answered server tool calls, at most four cache breakpoints).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import TypeAdapter

_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_adapters: dict[str, TypeAdapter[Any]] = {}


def _adapter(name: str) -> TypeAdapter[Any]:
    if name not in _adapters:
        import anthropic.types.beta as beta

        _adapters["message"] = TypeAdapter(beta.BetaMessageParam)
        _adapters["tool"] = TypeAdapter(beta.BetaToolParam)
        _adapters["system"] = TypeAdapter(list[beta.BetaTextBlockParam])
    return _adapters[name]


def _sdk_problems(body: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    for position, message in enumerate(body.get("messages", [])):
        try:
            validated = _adapter("message").validate_python(message)
            content = validated["content"]
            if not isinstance(content, str):
                list(content)  # the SDK types hold an Iterable: consuming it validates the blocks
        except Exception as exc:  # pydantic's ValidationError
            problems.append(f"message {position} does not match the SDK's MessageParam: {str(exc)[:400]}")
    for tool in body.get("tools", []):
        try:
            _adapter("tool").validate_python(tool)
        except Exception as exc:
            problems.append(f"tool {tool.get('name')}: {str(exc)[:300]}")
    if "system" in body:
        try:
            _adapter("system").validate_python(body["system"])
        except Exception as exc:
            problems.append(f"system: {str(exc)[:300]}")
    return problems


def _is_server_call(block: dict[str, Any]) -> bool:
    kind = block.get("type", "")
    return kind != "tool_use" and kind.endswith("tool_use")


def _rule_problems(body: dict[str, Any], continuing: bool) -> list[str]:
    problems: list[str] = []
    messages = body.get("messages", [])
    if not messages or messages[0]["role"] != "user":
        problems.append("the first message must be a user message")
    last_role = None
    breakpoints = sum(1 for block in body.get("system", []) if "cache_control" in block)
    breakpoints += sum(1 for tool in body.get("tools", []) if "cache_control" in tool)
    for position, message in enumerate(messages):
        role, blocks = message["role"], message["content"]
        if role == last_role:
            problems.append(f"message {position}: two {role} messages in a row")
        last_role = role
        if not blocks:
            problems.append(f"message {position}: empty content")
        for block in blocks if isinstance(blocks, list) else []:
            breakpoints += "cache_control" in block
            if block.get("type") == "text" and not block.get("text"):
                problems.append(f"message {position}: empty text block")
            if block.get("type") == "thinking" and not block.get("signature"):
                problems.append(f"message {position}: thinking block without signature")
            if block.get("type") in ("tool_use", "tool_result"):
                ident = block.get("id") or block.get("tool_use_id") or ""
                if not _ID.match(ident) or len(ident) > 64:
                    problems.append(f"message {position}: tool id {ident!r} does not match ^[a-zA-Z0-9_-]+$")
        if role == "assistant":
            calls = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            following = messages[position + 1]["content"] if position + 1 < len(messages) else []
            leading: list[Any] = []  # results must open the next message
            for block in following:
                if block.get("type") != "tool_result":
                    break
                leading.append(block.get("tool_use_id"))
            if set(calls) - set(leading):
                problems.append(f"message {position}: tool calls {calls} not answered first in the next message")
            server_calls = {b["id"] for b in blocks if _is_server_call(b)}
            answered = {b.get("tool_use_id") for b in blocks if "tool_use_id" in b}
            if position < len(messages) - 1 and server_calls - answered:
                problems.append(f"message {position}: server tool calls without results: {server_calls - answered}")
            if position == len(messages) - 1:
                tail = blocks[-1] if blocks else {}
                if tail.get("type") == "text" and tail["text"] != tail["text"].rstrip():
                    problems.append("the final assistant content ends with whitespace")
        if role == "user" and position > 0:
            previous = messages[position - 1]["content"]
            calls = {b["id"] for b in previous if b.get("type") == "tool_use"}
            for block in blocks:
                if block.get("type") == "tool_result" and block.get("tool_use_id") not in calls:
                    problems.append(f"message {position}: tool_result for unknown call {block.get('tool_use_id')}")
    if messages and messages[-1]["role"] != "user" and not continuing:
        problems.append("the conversation must end with a user message")
    if breakpoints > 4:
        problems.append(f"{breakpoints} cache_control breakpoints (the API allows 4)")
    return problems


def request_problems(body: dict[str, Any], *, continuing: bool = False) -> list[str]:
    """Everything that would make the API reject this body (empty when it is fine)."""
    return _sdk_problems(body) + _rule_problems(body, continuing)
