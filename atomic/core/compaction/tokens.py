"""Cheap token estimates (characters / 4), the same rule the engine uses for context budgeting."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

CHARS_PER_TOKEN = 4
# An image costs roughly 1200 tokens whatever its size; expressed in characters so one rule applies.
IMAGE_CHARS = 4800


def estimate_text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _blocks_chars(content: Any) -> int:
    if isinstance(content, str):
        return len(content)
    total = 0
    for block in content:
        if isinstance(block, TextContent):
            total += len(block.text)
        elif isinstance(block, ImageContent):
            total += IMAGE_CHARS
        elif isinstance(block, ThinkingContent):
            total += len(block.thinking)
        elif isinstance(block, ToolCall):
            total += len(block.name) + len(json.dumps(block.arguments, ensure_ascii=False))
    return total


def message_chars(message: Any) -> int:
    """The character weight of one context message (0 for anything the model never sees)."""
    if isinstance(message, (UserMessage, CustomMessage, AssistantMessage, ToolResultMessage)):
        return _blocks_chars(message.content)
    if isinstance(message, BashExecutionMessage):
        if message.exclude_from_context:
            return 0
        return len(message.command) + len(message.output)
    if isinstance(message, CompactionSummaryMessage | BranchSummaryMessage):
        return len(message.summary)
    return 0


def estimate_message_tokens(message: Any) -> int:
    return math.ceil(message_chars(message) / CHARS_PER_TOKEN)


def estimate_messages_tokens(messages: Iterable[Any]) -> int:
    return sum(estimate_message_tokens(message) for message in messages)
