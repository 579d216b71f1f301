"""Responses API SSE lines -> provider events (OpenAI, DeepSeek, LM Studio, OpenRouter, Codex-style servers).

Lines are read raw with one `json.loads` each and plain dict lookups: building the SDK's pydantic
event per delta cost several times the rest of the pipeline (docs/performance.md). The per-delta
work is constant: nothing is re-joined or re-scanned as the reply grows.

- reasoning items become thinking blocks: summary text (parts separated by a blank line) and
  `reasoning_text` content (DeepSeek, LM Studio, OpenRouter's raw chain of thought). The item is
  kept as the block's signature (id, summary, encrypted_content, reasoning_text content) for
  replay, see `openai_responses.py`.
- message items become text blocks (refusals too), function_call items tool calls with id
  `call_id|item_id`; arguments sent only in `.done` (LM Studio) still arrive.
- items Atomic does not show but the server takes back as input (web search, file search, code
  interpreter, image generation, MCP calls) are kept as opaque blocks and replayed in place; any
  other item type is skipped.
- an explicit `end_turn` (Codex) on a message item or the response sets the message's endTurn.
- `error` events and `response.failed` end the turn with the server's code and message.
"""

from __future__ import annotations

import json
from typing import Any

from atomic.core.messages import Usage
from atomic.core.providers.base import (
    Done,
    OpaqueBlock,
    ProviderError,
    ProviderEvent,
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
from atomic.core.providers.errors import classify_status, stream_ended_early
from atomic.core.providers.sse import data_json

# Output item types that are valid input items: kept (OpaqueBlock) and sent back with the turn.
_REPLAYABLE_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
    }
)
_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_THINKING_DELTAS = frozenset({"response.reasoning_summary_text.delta", "response.reasoning_text.delta"})


def usage_from_response(raw: dict[str, Any]) -> Usage:
    input_tokens = raw.get("input_tokens") or 0
    output_tokens = raw.get("output_tokens") or 0
    details = raw.get("input_tokens_details")
    cached = (details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
    return Usage(
        input=max(0, input_tokens - cached),
        output=output_tokens,
        cache_read=cached,
        total_tokens=input_tokens + output_tokens,
    )


def response_error(error: Any, fallback: str = "The response failed") -> ProviderError:
    """`code: message` from an `error` event (flat or with a nested `error`) or a response's error."""
    if isinstance(error, dict) and isinstance(error.get("error"), dict):
        error = error["error"]
    if not isinstance(error, dict):
        return ProviderError(fallback, kind="fatal")
    code = error.get("code") or error.get("type") or ""
    message = error.get("message") or fallback
    text = f"{code}: {message}" if isinstance(code, str) and code and code not in str(message) else str(message)
    return ProviderError(text, kind=classify_status(None, text))


def _reasoning_signature(item: dict[str, Any], streamed_text: list[str] | None) -> str:
    """The reasoning item as it may be replayed: id, summary, encrypted content, reasoning_text content."""
    replay: dict[str, Any] = {"type": "reasoning", "id": item.get("id"), "summary": item.get("summary") or []}
    if item.get("encrypted_content"):
        replay["encrypted_content"] = item["encrypted_content"]
    content = item.get("content")
    parts = [p for p in content if isinstance(p, dict) and p.get("type") == "reasoning_text"] if isinstance(content, list) else []
    if not parts and streamed_text:
        parts = [{"type": "reasoning_text", "text": "".join(streamed_text)}]
    if parts:
        replay["content"] = parts
    return json.dumps(replay, ensure_ascii=False)


class ResponsesStream:
    """Turns one response's SSE lines into provider events; `finish()` settles the turn."""

    def __init__(self) -> None:
        self.response_id: str | None = None
        self.done: Done | None = None
        self.end_turn: bool | None = None
        self._keys: dict[int, str] = {}  # output_index -> key
        self._kinds: dict[str, str] = {}  # key -> "reasoning" | "message" | "function_call" (open blocks)
        self._reasoning_text: dict[str, list[str]] = {}
        self._streamed_args: set[str] = set()
        self._saw_tool_call = False

    def feed(self, data: str) -> list[ProviderEvent]:
        """Events for one SSE event's data."""
        if not data or data == "[DONE]":
            return []
        event = data_json(data)
        if not isinstance(event, dict):
            return []
        return self.handle(event)

    def _key(self, event: dict[str, Any]) -> str:
        item_id = event.get("item_id")
        if item_id.__class__ is str and item_id:
            return item_id
        return self._keys.get(event.get("output_index", -1), "")

    def handle(self, event: dict[str, Any]) -> list[ProviderEvent]:
        kind = event.get("type")
        delta = event.get("delta")
        # Deltas first: they are nearly every line of a reply.
        if kind in _TEXT_DELTAS:
            key = self._key(event)
            if delta and self._kinds.get(key) == "message":
                return [TextDelta(key, delta)]
            return []
        if kind in _THINKING_DELTAS:
            key = self._key(event)
            if delta and self._kinds.get(key) == "reasoning":
                if kind == "response.reasoning_text.delta":
                    self._reasoning_text.setdefault(key, []).append(delta)
                return [ThinkingDelta(key, delta)]
            return []
        if kind == "response.function_call_arguments.delta":
            key = self._key(event)
            if delta and self._kinds.get(key) == "function_call":
                self._streamed_args.add(key)
                return [ToolCallDelta(key, delta)]
            return []
        if kind == "response.output_item.added":
            return self._item_added(event)
        if kind == "response.output_item.done":
            return self._item_done(event)
        if kind == "response.reasoning_summary_part.added":
            key = self._key(event)
            if (event.get("summary_index") or 0) > 0 and self._kinds.get(key) == "reasoning":
                return [ThinkingDelta(key, "\n\n")]  # separate summary paragraphs
            return []
        if kind in ("response.created", "response.in_progress"):
            response = event.get("response")
            if isinstance(response, dict) and response.get("id"):
                self.response_id = str(response["id"])
            return []
        if kind in ("response.completed", "response.incomplete"):
            response = event.get("response")
            return self._completed(response if isinstance(response, dict) else {})
        if kind == "response.failed":
            response = event.get("response")
            raise response_error(response.get("error") if isinstance(response, dict) else None)
        if kind == "error":
            raise response_error(event)
        return []

    def _item_added(self, event: dict[str, Any]) -> list[ProviderEvent]:
        item = event.get("item")
        if not isinstance(item, dict):
            return []
        index = event.get("output_index", len(self._keys))
        key = str(item.get("id") or f"item{index}")
        self._keys[index] = key
        item_type = item.get("type")
        if item_type == "reasoning":
            self._kinds[key] = "reasoning"
            return [ThinkingStart(key)]
        if item_type == "message":
            self._kinds[key] = "message"
            return [TextStart(key)]
        if item_type == "function_call":
            self._kinds[key] = "function_call"
            self._saw_tool_call = True
            call_id = str(item.get("call_id") or key)
            tool_id = f"{call_id}|{item['id']}" if item.get("id") else call_id
            return [ToolCallStart(key, id=tool_id, name=str(item.get("name") or ""))]
        return []  # web_search_call, mcp_call, ...: not part of the message

    def _item_done(self, event: dict[str, Any]) -> list[ProviderEvent]:
        item = event.get("item")
        item = item if isinstance(item, dict) else {}
        key = self._keys.get(event.get("output_index", -1)) or str(item.get("id") or "")
        kind = self._kinds.pop(key, None)
        if kind == "reasoning":
            return [ThinkingEnd(key, signature=_reasoning_signature(item, self._reasoning_text.pop(key, None)))]
        if kind == "message":
            if isinstance(item.get("end_turn"), bool):
                self.end_turn = item["end_turn"]
            return [TextEnd(key, signature=str(item["id"]) if item.get("id") else None)]
        if kind == "function_call":
            events: list[ProviderEvent] = []
            arguments = item.get("arguments")
            if key not in self._streamed_args and isinstance(arguments, str) and arguments:
                events.append(ToolCallDelta(key, arguments))  # server sent no argument deltas
            events.append(ToolCallEnd(key))
            return events
        if item.get("type") in _REPLAYABLE_ITEMS and item.get("status") != "in_progress":
            return [OpaqueBlock(data=item)]
        return []

    def _completed(self, response: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if response.get("id"):
            self.response_id = str(response["id"])
        usage = response.get("usage")
        if isinstance(usage, dict):
            events.append(UsageUpdate(usage=usage_from_response(usage)))
        if isinstance(response.get("end_turn"), bool):
            self.end_turn = response["end_turn"]
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        if response.get("status") == "incomplete" and reason == "content_filter":
            # Azure's content filter (and OpenAI's moderation) cut the reply.
            raise ProviderError("The content filter blocked the response (incomplete: content_filter).", kind="fatal")
        if response.get("status") == "incomplete" and reason not in (None, "max_output_tokens"):
            raise ProviderError(f"The response is incomplete: {reason}", kind="fatal")
        if response.get("status") == "incomplete":
            stop = "length"
        elif self._saw_tool_call:
            stop = "toolUse"
        else:
            stop = "stop"
        self.done = Done(stop_reason=stop, response_id=self.response_id, end_turn=self.end_turn)  # type: ignore[arg-type]
        return events

    def finish(self) -> list[ProviderEvent]:
        if self.done is None:
            raise stream_ended_early("no response.completed")
        # Servers that skip output_item.done still get every block closed.
        events: list[ProviderEvent] = []
        for key, kind in self._kinds.items():
            if kind == "reasoning":
                events.append(ThinkingEnd(key))
            elif kind == "message":
                events.append(TextEnd(key))
            else:
                events.append(ToolCallEnd(key))
        self._kinds.clear()
        if self.end_turn is not None and self.done.end_turn is None:
            self.done.end_turn = self.end_turn
        return [*events, self.done]
