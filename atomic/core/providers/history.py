"""History clean-up shared by every API before message conversion.

APIs reject histories where a tool call has no result, a result has no call, or an
assistant turn is empty. Aborted and failed turns produce exactly those shapes, so they are
repaired here once instead of in each provider.
"""

from __future__ import annotations

import re
from typing import Any

from atomic.core.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage

ABORTED_TOOL_RESULT_TEXT = "Tool call was aborted"

_UNSAFE_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def normalize_history(messages: list[Any]) -> list[Any]:
    """Drop empty failed turns and orphan results; give every tool call a result.

    Each assistant turn is followed directly by one result per tool call, in call order: the
    real result wherever it sits later in the list, else a synthetic "aborted" error result.
    """
    results_by_call: dict[str, ToolResultMessage] = {}
    for message in messages:
        if isinstance(message, ToolResultMessage):
            results_by_call.setdefault(message.tool_call_id, message)

    cleaned: list[Any] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            if message.stop_reason in ("error", "aborted") and not message.content:
                continue
            cleaned.append(message)
            for call in message.tool_calls():
                result = results_by_call.pop(call.id, None)
                cleaned.append(result if result is not None else _aborted_result(call))
        elif isinstance(message, UserMessage):
            cleaned.append(message)
        # Tool results were placed after their call above; orphans are dropped. Other roles
        # (bash executions, custom messages) are converted to user messages by the engine.
    return cleaned


def _aborted_result(call: Any) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id,
        tool_name=call.name,
        content=[TextContent(text=ABORTED_TOOL_RESULT_TEXT)],
        is_error=True,
    )


def safe_tool_id(tool_call_id: str, max_len: int = 64) -> str:
    """Ids from other APIs (e.g. `call_x|fc_y`) made acceptable to Anthropic: [a-zA-Z0-9_-]{1,64}."""
    cleaned = _UNSAFE_ID_CHARS.sub("_", tool_call_id)[:max_len]
    return cleaned or "tool_call"


def from_same_model(message: AssistantMessage, api: str, model_id: str, provider: str) -> bool:
    """Signed/encrypted reasoning only replays to the model (and API) that produced it."""
    if message.api != api:
        return False
    if message.model and message.model != model_id:
        return False
    return not (message.provider and provider and message.provider != provider)
