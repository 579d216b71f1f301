"""Chat Completions SSE lines -> provider events, for every OpenAI-compatible server.

The lines are read raw (see docs/architecture.md): one `json.loads` per line and plain dict
lookups, because a pydantic chunk per delta costs more than the rest of the pipeline.

Server differences handled here (each one seen on a real server):
- `delta.content` as a list of content parts (Mistral magistral: `thinking` parts holding text
  parts, `text` parts); unknown part types are skipped.
- reasoning text in `reasoning_content` (DeepSeek, llama.cpp, xAI, Z.ai), `reasoning` (Groq,
  OpenRouter) or `reasoning_text`; the field name becomes the thinking block's signature so the
  text can go back in the same field (see `openai_completions.py`).
- OpenRouter's `reasoning_details`: fragments merged per index (texts concatenated, other fields
  kept as sent) and kept verbatim in the thinking signature, to be sent back.
- usage: cached tokens from `prompt_tokens_details.cached_tokens`, DeepSeek's
  `prompt_cache_hit_tokens` or llama.cpp's `timings.cache_n`; reasoning tokens that a server
  leaves out of `completion_tokens` (xAI) are counted as output.
- `{"error": ...}` chunks (Groq `tool_use_failed`) end the turn with the server's message; an
  error chunk after the finish reason (OpenRouter's "Token limit reached" after `length`) only
  contributes its usage.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from atomic.core.messages import Usage
from atomic.core.providers.base import (
    Done,
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

_FINISH_REASONS = {
    "stop": "stop",
    "end": "stop",
    "eos": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
}
# Finish reasons that mean the reply was cut off by the server, not finished.
_FAILED_FINISH = {"content_filter": "fatal", "network_error": "transient", "error": "transient"}

# Field names servers use for streamed reasoning text, in the order they are looked for.
REASONING_FIELDS = ("reasoning_content", "reasoning", "reasoning_text")

# Keys of a reasoning_details entry whose fragments are concatenated while streaming.
_DETAIL_TEXT_KEYS = ("text", "summary", "data")


def usage_from_chunk(raw: dict[str, Any], timings: Any = None) -> Usage:
    """Usage with `input` excluding cached tokens (cacheRead / cacheWrite counted apart)."""
    prompt = raw.get("prompt_tokens") or 0
    completion = raw.get("completion_tokens") or 0
    details = raw.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    cached = details.get("cached_tokens") or raw.get("prompt_cache_hit_tokens") or 0
    if not cached and isinstance(timings, dict) and "prompt_tokens_details" not in raw:
        # llama.cpp reports the prompt-cache reuse only in its timings: prompt = prompt_n + cache_n.
        cache_n, prompt_n = timings.get("cache_n") or 0, timings.get("prompt_n") or 0
        if cache_n and cache_n + prompt_n == prompt:
            cached = cache_n
    cache_write = details.get("cache_write_tokens") or 0
    completion_details = raw.get("completion_tokens_details")
    reasoning = (completion_details.get("reasoning_tokens") or 0) if isinstance(completion_details, dict) else 0
    output = completion
    if reasoning and raw.get("total_tokens") == prompt + completion + reasoning:
        output += reasoning  # xAI counts reasoning tokens outside completion_tokens
    return Usage(
        input=max(0, prompt - cached - cache_write),
        output=output,
        cache_read=cached,
        cache_write=cache_write,
        total_tokens=prompt + output,
    )


def error_text(error: Any) -> tuple[str, int | None]:
    """`code: message (upstream words)` and the status an error object names (chunks and HTTP bodies)."""
    if not isinstance(error, dict):
        return str(error), None
    message = error.get("message")
    text = message if isinstance(message, str) and message else json.dumps(error, ensure_ascii=False)
    code = error.get("code")
    if isinstance(code, str) and code and code not in text:
        text = f"{code}: {text}"
    metadata = error.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    if isinstance(raw, str) and raw and raw not in text:
        text = f"{text} ({raw})"  # OpenRouter: the upstream provider's own words
    status = error.get("status_code")
    if not isinstance(status, int):
        status = code if isinstance(code, int) else None
    return text, status


def stream_error(error: Any) -> ProviderError:
    text, status = error_text(error)
    return ProviderError(text, kind=classify_status(status, text), status=status)


def _merge_detail(merged: dict[int, dict[str, Any]], detail: Any, position: int) -> str:
    """Fold one reasoning_details fragment into `merged`; returns its readable text (if any)."""
    if not isinstance(detail, dict):
        return ""
    index = detail.get("index")
    index = index if isinstance(index, int) else position
    current = merged.get(index)
    if current is None:
        merged[index] = dict(detail)
    else:
        for key, value in detail.items():
            old = current.get(key)
            if key in _DETAIL_TEXT_KEYS and isinstance(value, str) and isinstance(old, str):
                current[key] = old + value
            elif value not in (None, "") or key not in current:
                current[key] = value
    if detail.get("type") == "reasoning.summary":
        summary = detail.get("summary")
        return summary if isinstance(summary, str) else ""
    text = detail.get("text")
    return text if isinstance(text, str) else ""


class CompletionsStream:
    """Turns one reply's SSE lines into provider events; `finish()` settles the turn."""

    def __init__(self) -> None:
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.done = False
        self._counter = 0
        self._text_key: str | None = None
        self._thinking_key: str | None = None
        self._thinking_field: str | None = None
        self._details: dict[int, dict[str, Any]] = {}
        self._tools: dict[int, tuple[str, str]] = {}  # tool index -> (key, call id)
        self._open_tools: list[str] = []

    # -------------------------------------------------------------- blocks

    def _key(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def _close_text(self, events: list[ProviderEvent]) -> None:
        if self._text_key is not None:
            events.append(TextEnd(self._text_key))
            self._text_key = None

    def _close_thinking(self, events: list[ProviderEvent]) -> None:
        if self._thinking_key is not None:
            events.append(ThinkingEnd(self._thinking_key, signature=self._signature()))
            self._thinking_key = None
            self._thinking_field = None

    def _signature(self) -> str | None:
        """The field the reasoning came in, plus the merged reasoning_details when there are any."""
        if not self._details:
            return self._thinking_field
        details = [self._details[i] for i in sorted(self._details)]
        self._details = {}
        return json.dumps({"field": self._thinking_field, "reasoning_details": details}, ensure_ascii=False)

    def _text(self, events: list[ProviderEvent], text: str) -> None:
        key = self._text_key
        if key is None:
            self._close_thinking(events)
            key = self._text_key = self._key("text")
            events.append(TextStart(key))
        events.append(TextDelta(key, text))

    def _thinking(self, events: list[ProviderEvent], text: str, field: str | None) -> None:
        key = self._thinking_key
        if key is None:
            self._close_text(events)
            key = self._thinking_key = self._key("thinking")
            events.append(ThinkingStart(key))
        if field and self._thinking_field is None:
            self._thinking_field = field
        if text:
            events.append(ThinkingDelta(key, text))

    # -------------------------------------------------------------- lines

    def feed(self, data: str) -> list[ProviderEvent]:
        """Events for one SSE event's data (`[DONE]` ends the stream)."""
        if data == "[DONE]":
            self.done = True
            return []
        if self.done or not data:
            return []  # the rest of the body is read (the connection goes back to the pool) but not used
        chunk = data_json(data)
        if not isinstance(chunk, dict):
            return []
        return self.handle(chunk)

    def handle(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        # The common chunk first: one choice whose delta is a piece of the open text block.
        choices = chunk.get("choices")
        if choices.__class__ is list and len(choices) == 1 and self._text_key is not None:
            choice = choices[0]
            delta = choice.get("delta") if choice.__class__ is dict else None
            if (
                delta.__class__ is dict
                and len(delta) == 1
                and delta.get("content").__class__ is str
                and not choice.get("finish_reason")
                and chunk.get("usage") is None
                and "error" not in chunk
            ):
                return [TextDelta(self._text_key, delta["content"])] if delta["content"] else []
        events: list[ProviderEvent] = []
        error = chunk.get("error")
        if error is not None and self.finish_reason is None:
            raise stream_error(error)
        if self.response_id is None:
            response_id = chunk.get("id")
            # Azure's first chunk (prompt filter results, `choices: []`) has an empty id.
            if isinstance(response_id, str) and response_id:
                self.response_id = response_id
        if choices and isinstance(choices, list):
            for choice in choices:
                if not isinstance(choice, dict):
                    continue
                delta = choice.get("delta")
                if delta:
                    self._delta(events, delta)
                finish = choice.get("finish_reason")
                if finish:
                    self.finish_reason = str(finish)
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            events.append(UsageUpdate(usage=usage_from_chunk(usage, chunk.get("timings"))))
        return events

    def _delta(self, events: list[ProviderEvent], delta: Any) -> None:
        if not isinstance(delta, dict):
            return
        content = delta.get("content")
        # The common case first: one short string of text.
        if len(delta) == 1 and content.__class__ is str:
            if content:
                self._text(events, content)
            return
        reasoning_seen = False
        for field in REASONING_FIELDS:
            value = delta.get(field)
            if isinstance(value, str) and value:
                self._thinking(events, value, field)
                reasoning_seen = True
                break
        details = delta.get("reasoning_details")
        if isinstance(details, list) and details:
            self._reasoning_details(events, details, reasoning_seen)
        if isinstance(content, str):
            if content:
                self._text(events, content)
        elif isinstance(content, list):
            self._content_parts(events, content)
        tool_calls = delta.get("tool_calls")
        if tool_calls and isinstance(tool_calls, list):
            for call in tool_calls:
                if isinstance(call, dict):
                    self._tool_delta(events, call)

    def _reasoning_details(self, events: list[ProviderEvent], details: list[Any], text_seen: bool) -> None:
        if self._thinking_key is None:
            # Details open (or belong to) a thinking block even when they carry no readable text.
            self._thinking(events, "", None)
        texts = [_merge_detail(self._details, d, self._counter * 1000 + i) for i, d in enumerate(details)]
        if not text_seen:
            text = "".join(texts)
            if text and self._thinking_key is not None:
                events.append(ThinkingDelta(self._thinking_key, text))

    def _content_parts(self, events: list[ProviderEvent], parts: list[Any]) -> None:
        for part in parts:
            if isinstance(part, str):
                if part:
                    self._text(events, part)
                continue
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                text = part.get("text")
                if isinstance(text, str) and text:
                    self._text(events, text)
            elif kind == "thinking":
                inner = part.get("thinking")
                pieces = inner if isinstance(inner, list) else [inner]
                text = "".join(
                    p if isinstance(p, str) else (p.get("text") or "") if isinstance(p, dict) else ""
                    for p in pieces
                )
                if text:
                    self._thinking(events, text, None)
            # Other part types (references, images, audio) carry nothing Atomic keeps.

    def _tool_delta(self, events: list[ProviderEvent], call: dict[str, Any]) -> None:
        index = call.get("index")
        index = index if isinstance(index, int) else len(self._tools)
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        call_id = call.get("id")
        known = self._tools.get(index)
        # Some servers reuse index 0 for several complete calls: a new id means a new call.
        if known is None or (call_id and call_id != known[1]):
            self._close_text(events)
            self._close_thinking(events)
            key = self._key("tool")
            tool_id = call_id if isinstance(call_id, str) and call_id else f"call_{uuid.uuid4().hex[:24]}"
            self._tools[index] = (key, tool_id)
            self._open_tools.append(key)
            name = function.get("name")
            events.append(ToolCallStart(key, id=tool_id, name=name if isinstance(name, str) else ""))
        arguments = function.get("arguments")
        if isinstance(arguments, str) and arguments:
            events.append(ToolCallDelta(self._tools[index][0], arguments))

    # -------------------------------------------------------------- end

    def finish(self) -> list[ProviderEvent]:
        if self.finish_reason is None:
            raise stream_ended_early("no finish_reason")
        failed = _FAILED_FINISH.get(self.finish_reason)
        if failed is not None:
            raise ProviderError(f"The server stopped the reply: finish_reason {self.finish_reason}", kind=failed)  # type: ignore[arg-type]
        events: list[ProviderEvent] = []
        self._close_text(events)
        self._close_thinking(events)
        if self._details:
            # reasoning_details that came after their thinking block closed: keep them in one of their own.
            key = self._key("thinking")
            events.append(ThinkingStart(key))
            events.append(ThinkingEnd(key, signature=self._signature()))
        events.extend(ToolCallEnd(key) for key in self._open_tools)
        self._open_tools = []
        stop = _FINISH_REASONS.get(self.finish_reason, "stop")
        if self._tools and stop == "stop":
            stop = "toolUse"  # some servers finish tool-calling turns with "stop"
        events.append(Done(stop_reason=stop, response_id=self.response_id))  # type: ignore[arg-type]
        return events
