"""Text as LLM APIs accept it: lone UTF-16 surrogates replaced by U+FFFD on the way out.

A lone surrogate (a client's `"\\ud800"`, half of a torn emoji) is kept verbatim in the session
file and in RPC output (as a JSON escape), but it cannot be encoded as UTF-8, so an SDK would fail
to build every later request of the session. Only the copy sent to the model is cleaned; messages
without such characters are passed through untouched (no copies).
"""

from __future__ import annotations

import re
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def _clean_value(value: Any) -> Any:
    """Strings inside JSON-like data; the same object comes back when nothing changed."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        changed = False
        out: dict[Any, Any] = {}
        for key, item in value.items():
            new_key = clean_text(key) if isinstance(key, str) else key
            new_item = _clean_value(item)
            changed = changed or new_key is not key or new_item is not item
            out[new_key] = new_item
        return out if changed else value
    if isinstance(value, list):
        cleaned = [_clean_value(v) for v in value]
        return value if all(a is b for a, b in zip(value, cleaned, strict=True)) else cleaned
    return value


def _clean_block(block: Any) -> Any:
    if isinstance(block, TextContent):
        text = clean_text(block.text)
        return block if text is block.text else block.model_copy(update={"text": text})
    if isinstance(block, ThinkingContent):
        thinking = clean_text(block.thinking)
        return block if thinking is block.thinking else block.model_copy(update={"thinking": thinking})
    if isinstance(block, ToolCall):
        try:
            arguments = _clean_value(block.arguments)
        except RecursionError:
            return block
        return block if arguments is block.arguments else block.model_copy(update={"arguments": arguments})
    return block


def _clean_blocks(blocks: list[Any]) -> list[Any]:
    cleaned = [_clean_block(b) for b in blocks]
    return blocks if all(a is b for a, b in zip(blocks, cleaned, strict=True)) else cleaned


def encodable_message(message: Any) -> Any:
    """`message` with lone surrogates in its text replaced (the same object when it has none)."""
    if isinstance(message, UserMessage):
        content = clean_text(message.content) if isinstance(message.content, str) else _clean_blocks(message.content)
    elif isinstance(message, AssistantMessage | ToolResultMessage):
        content = _clean_blocks(message.content)
    else:
        return message
    return message if content is message.content else message.model_copy(update={"content": content})
