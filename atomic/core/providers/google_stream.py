"""Gemini `streamGenerateContent?alt=sse` chunks -> provider events (Google's API and Vertex AI).

Each chunk is a whole `GenerateContentResponse` holding the next parts of the one candidate:
- `text` parts with `thought: true` are thinking, other `text` parts text; consecutive parts of a
  kind are one block, and a part's `thoughtSignature` becomes that block's signature. An empty
  text part that only carries a signature signs the open text block.
- `functionCall` parts arrive whole, each a tool call (several in one turn when the model calls
  in parallel); one without an `id` gets an id of Atomic's own.
- `executableCode` / `codeExecutionResult` (server-side code execution) are kept as opaque blocks.
- `usageMetadata` is cumulative: `promptTokenCount` includes cached content, which is counted
  apart as cache reads; thoughts count as output.
- `finishReason`: STOP is a normal stop (tool use when the turn called functions), MAX_TOKENS is
  "length"; SAFETY, RECITATION, MODEL_ARMOR and every other reason end the turn as an error whose
  text names the reason and the server's `finishMessage`. A prompt blocked before any candidate
  (`promptFeedback.blockReason`) is an error too. A stream without a finish reason is an error.
"""

from __future__ import annotations

import json
import uuid
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
from atomic.core.providers.google_request import GENERATED_ID_PREFIX
from atomic.core.providers.sse import data_json

# Why Gemini stopped, in words, for the reasons that end a turn as an error.
_BLOCKED_REASONS = {
    "SAFETY": "the response was blocked by the safety filters",
    "RECITATION": "the response was blocked for reciting copyrighted material",
    "LANGUAGE": "the response was in an unsupported language",
    "BLOCKLIST": "the response contained a blocklisted term",
    "PROHIBITED_CONTENT": "the response was blocked for prohibited content",
    "SPII": "the response was blocked for sensitive personal information",
    "IMAGE_SAFETY": "the generated image was blocked by the safety filters",
    "MODEL_ARMOR": "the response was blocked by Model Armor",
    "MALFORMED_FUNCTION_CALL": "the model produced a malformed function call",
    "UNEXPECTED_TOOL_CALL": "the model called a tool that was not offered",
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls",
    "OTHER": "the response stopped for an unspecified reason",
}

# Server-side parts that are valid input again: kept and sent back in place.
_OPAQUE_PARTS = ("executableCode", "codeExecutionResult")


def usage_from_metadata(raw: dict[str, Any]) -> Usage:
    prompt = raw.get("promptTokenCount") or 0
    tool_prompt = raw.get("toolUsePromptTokenCount") or 0
    cached = raw.get("cachedContentTokenCount") or 0
    output = (raw.get("candidatesTokenCount") or 0) + (raw.get("thoughtsTokenCount") or 0)
    input_tokens = max(0, prompt + tool_prompt - cached)
    return Usage(input=input_tokens, output=output, cache_read=cached, total_tokens=input_tokens + cached + output)


def stopped_error(reason: str, message: Any) -> ProviderError:
    words = _BLOCKED_REASONS.get(reason, "the response stopped early")
    text = f"Gemini stopped the reply ({reason}): {words}"
    if isinstance(message, str) and message:
        text += f". {message}"
    return ProviderError(text, kind="fatal")


def google_error_text(error: Any) -> str:
    """`RESOURCE_EXHAUSTED: <message>` from a Google error object."""
    if not isinstance(error, dict):
        return json.dumps(error, ensure_ascii=False) if error is not None else "(no body)"
    message = error.get("message")
    status = error.get("status")
    text = message if isinstance(message, str) and message else json.dumps(error, ensure_ascii=False)
    return f"{status}: {text}" if isinstance(status, str) and status else text


def retry_delay_s(error: Any) -> float | None:
    """The wait a Google error asks for: `RetryInfo.retryDelay` ("34.4s") in its details."""
    details = error.get("details") if isinstance(error, dict) else None
    for detail in details if isinstance(details, list) else ():
        delay = detail.get("retryDelay") if isinstance(detail, dict) else None
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return max(0.0, float(delay[:-1]))
            except ValueError:
                return None
    return None


class GeminiStream:
    """Turns one response's SSE chunks into provider events; `finish()` settles the turn."""

    def __init__(self) -> None:
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.finish_message: Any = None
        self._counter = 0
        self._open: tuple[str, str] | None = None  # (kind "text" | "thinking", key)
        self._signature: str | None = None
        self._saw_call = False

    def feed(self, data: str) -> list[ProviderEvent]:
        if not data:
            return []
        chunk = data_json(data)
        if isinstance(chunk, list):  # a JSON array of responses (no alt=sse): the same objects
            return [event for item in chunk if isinstance(item, dict) for event in self.handle(item)]
        return self.handle(chunk) if isinstance(chunk, dict) else []

    def handle(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        if "error" in chunk:
            error = chunk["error"]
            text = google_error_text(error)
            code = error.get("code") if isinstance(error, dict) else None
            status = code if isinstance(code, int) else None
            raise ProviderError(text, kind=classify_status(status, text), status=status,
                                retry_after_s=retry_delay_s(error))
        events: list[ProviderEvent] = []
        if self.response_id is None and isinstance(chunk.get("responseId"), str):
            self.response_id = chunk["responseId"]
        candidates = chunk.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if isinstance(candidate, dict):
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, dict):
                    self._part(events, part)
            if candidate.get("finishReason"):
                self.finish_reason = str(candidate["finishReason"])
                self.finish_message = candidate.get("finishMessage")
        elif candidates is None:
            feedback = chunk.get("promptFeedback")
            reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
            if reason and isinstance(feedback, dict):
                text = f"Gemini blocked the prompt ({reason})"
                message = feedback.get("blockReasonMessage")
                raise ProviderError(f"{text}: {message}" if message else text, kind="fatal")
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            events.append(UsageUpdate(usage=usage_from_metadata(usage)))
        return events

    # -------------------------------------------------------------- parts

    def _key(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}{self._counter}"

    def _close(self, events: list[ProviderEvent]) -> None:
        if self._open is None:
            return
        kind, key = self._open
        if kind == "text":
            events.append(TextEnd(key, signature=self._signature))
        else:
            events.append(ThinkingEnd(key, signature=self._signature))
        self._open = None
        self._signature = None

    def _part(self, events: list[ProviderEvent], part: dict[str, Any]) -> None:
        signature = part.get("thoughtSignature")
        signature = signature if isinstance(signature, str) and signature else None
        text = part.get("text")
        if isinstance(text, str):
            kind = "thinking" if part.get("thought") is True else "text"
            if not text:
                if signature and self._open is not None and self._open[0] == kind:
                    self._signature = signature
                return
            if self._open is None or self._open[0] != kind:
                self._close(events)
                key = self._key(kind)
                self._open = (kind, key)
                events.append(TextStart(key) if kind == "text" else ThinkingStart(key))
            key = self._open[1]
            events.append(TextDelta(key, text) if kind == "text" else ThinkingDelta(key, text))
            if signature:
                self._signature = signature
            return
        call = part.get("functionCall")
        if isinstance(call, dict):
            self._close(events)
            self._saw_call = True
            key = self._key("call")
            call_id = call.get("id")
            if not isinstance(call_id, str) or not call_id:
                call_id = f"{GENERATED_ID_PREFIX}{uuid.uuid4().hex[:24]}"
            name = call.get("name")
            events.append(ToolCallStart(key, id=call_id, name=name if isinstance(name, str) else ""))
            args = call.get("args")
            events.append(ToolCallDelta(key, json.dumps(args if isinstance(args, dict) else {})))
            events.append(ToolCallEnd(key, signature=signature))
            return
        if any(name in part for name in _OPAQUE_PARTS):
            self._close(events)
            events.append(OpaqueBlock(data=dict(part)))
        # Other parts (inline images the model generated, file data) carry nothing Atomic keeps.

    # -------------------------------------------------------------- end

    def finish(self) -> list[ProviderEvent]:
        reason = self.finish_reason
        if reason is None:
            raise stream_ended_early("no finishReason")
        if reason not in ("STOP", "MAX_TOKENS"):
            raise stopped_error(reason, self.finish_message)
        events: list[ProviderEvent] = []
        self._close(events)
        stop = "length" if reason == "MAX_TOKENS" else "toolUse" if self._saw_call else "stop"
        events.append(Done(stop_reason=stop, response_id=self.response_id))  # type: ignore[arg-type]
        return events
