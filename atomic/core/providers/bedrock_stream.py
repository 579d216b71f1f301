"""Bedrock ConverseStream events (decoded from the AWS event-stream frames) -> provider events.

- `contentBlockDelta` carries `text`, `reasoningContent` (`text`, then its `signature`; or
  `redactedContent`, which becomes a thinking block marked redacted whose data is its signature)
  or `toolUse.input` (JSON text); `contentBlockStart` opens tool uses.
- Server tools (`toolUse` of type `server_tool_use` and the `toolResult` blocks the server adds)
  are rebuilt whole and kept as opaque blocks.
- `messageStop.stopReason`: end_turn / stop_sequence stop, tool_use, max_tokens and
  model_context_window_exceeded are "length"; guardrail_intervened and content_filtered end the turn
  as an error. `metadata.usage`: Bedrock's `inputTokens` already excludes cache reads and writes.
- Exception frames (throttlingException, modelStreamErrorException, ...) end the turn with their
  message; a stream without `messageStop` is an error.
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

_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "toolUse",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
_BLOCKED = {
    "guardrail_intervened": "a Bedrock guardrail intervened",
    "content_filtered": "the content filter blocked the response",
}
# The HTTP status each Bedrock exception stands for (so retries and wording match the HTTP errors).
EXCEPTION_STATUS = {
    "throttlingexception": 429,
    "servicequotaexceededexception": 429,
    "serviceunavailableexception": 503,
    "internalserverexception": 500,
    "modelstreamerrorexception": 500,
    "modeltimeoutexception": 408,
    "modelnotreadyexception": 503,
    "validationexception": 400,
    "accessdeniedexception": 403,
    "resourcenotfoundexception": 404,
    "modelerrorexception": 424,
}

RETRYABLE_STATUS = frozenset({408, 429, 500, 503})


def exception_error(kind: str, payload: bytes, status: int | None = None) -> ProviderError:
    """`ThrottlingException: Too many requests…` for an exception frame or error answer."""
    try:
        data = json.loads(payload or b"{}")
    except ValueError:
        data = None
    message = data.get("message") or data.get("Message") if isinstance(data, dict) else None
    name = kind[:1].upper() + kind[1:] if kind else "Error"
    text = f"{name}: {message}" if message else f"{name}: {payload.decode('utf-8', 'replace')[:500] or '(no body)'}"
    status = status or EXCEPTION_STATUS.get(kind.lower())
    # Throttling reads "Too many tokens, please wait": a rate limit, not a context overflow.
    error_kind = "transient" if status in RETRYABLE_STATUS else classify_status(status, text)
    return ProviderError(text, kind=error_kind, status=status)


def usage_from_metadata(raw: dict[str, Any]) -> Usage:
    input_tokens = raw.get("inputTokens") or 0
    output = raw.get("outputTokens") or 0
    cache_read = raw.get("cacheReadInputTokens") or raw.get("cacheReadInputTokenCount") or 0
    cache_write = raw.get("cacheWriteInputTokens") or raw.get("cacheWriteInputTokenCount") or 0
    return Usage(input=input_tokens, output=output, cache_read=cache_read, cache_write=cache_write,
                 total_tokens=input_tokens + output + cache_read + cache_write)


class _ServerBlock:
    """A server tool use or result, rebuilt from its start and deltas."""

    def __init__(self, start: dict[str, Any]) -> None:
        self.start = start
        self.input: list[str] = []
        self.content: list[Any] = []

    def finish(self) -> dict[str, Any]:
        if "toolUse" in self.start:
            use = dict(self.start["toolUse"])
            text = "".join(self.input)
            use["input"] = json.loads(text) if text.strip() else {}
            return {"toolUse": use}
        return {"toolResult": {**self.start["toolResult"], "content": self.content}}


class BedrockStream:
    """Maps one response's events, in order; `finish()` settles the turn."""

    def __init__(self, response_id: str | None = None) -> None:
        self.response_id = response_id
        self.stop_reason: str | None = None
        self._kinds: dict[int, str] = {}  # open block index -> "text" | "thinking" | "tool" | "server"
        self._signatures: dict[int, str] = {}
        self._redacted: set[int] = set()
        self._server: dict[int, _ServerBlock] = {}

    def handle(self, event_type: str, event: dict[str, Any]) -> list[ProviderEvent]:
        if event_type == "contentBlockDelta":
            return self._delta(event["contentBlockIndex"], event.get("delta") or {})
        if event_type == "contentBlockStart":
            return self._start(event["contentBlockIndex"], event.get("start") or {})
        if event_type == "contentBlockStop":
            return self._stop(event["contentBlockIndex"])
        if event_type == "messageStop":
            self.stop_reason = str(event.get("stopReason") or "end_turn")
        elif event_type == "metadata":
            usage = event.get("usage")
            if isinstance(usage, dict):
                return [UsageUpdate(usage=usage_from_metadata(usage))]
        return []  # messageStart and event types added later

    def _start(self, index: int, start: dict[str, Any]) -> list[ProviderEvent]:
        use = start.get("toolUse")
        if isinstance(use, dict) and use.get("type") not in (None, "tool_use"):
            self._kinds[index] = "server"
            self._server[index] = _ServerBlock({"toolUse": use})
            return []
        if isinstance(use, dict):
            self._kinds[index] = "tool"
            tool_id = use.get("toolUseId")
            if not isinstance(tool_id, str) or not tool_id:
                tool_id = f"tooluse_atomic_{uuid.uuid4().hex[:22]}"  # never seen, but an id must be unique
            return [ToolCallStart(str(index), id=tool_id, name=str(use.get("name") or ""))]
        if isinstance(start.get("toolResult"), dict):
            self._kinds[index] = "server"
            self._server[index] = _ServerBlock({"toolResult": start["toolResult"]})
        return []

    def _delta(self, index: int, delta: dict[str, Any]) -> list[ProviderEvent]:
        key = str(index)
        kind = self._kinds.get(index)
        text = delta.get("text")
        if isinstance(text, str):
            if kind is None:
                if not text:
                    return []  # an empty text block (gpt-oss opens one): nothing to show
                self._kinds[index] = "text"
                return [TextStart(key), TextDelta(key, text)]
            return [TextDelta(key, text)] if text and kind == "text" else []
        reasoning = delta.get("reasoningContent")
        if isinstance(reasoning, dict):
            events: list[ProviderEvent] = []
            if kind is None:
                self._kinds[index] = kind = "thinking"
                events.append(ThinkingStart(key))
            if kind != "thinking":
                return events
            if isinstance(reasoning.get("text"), str) and reasoning["text"]:
                events.append(ThinkingDelta(key, reasoning["text"]))
            if isinstance(reasoning.get("signature"), str):
                self._signatures[index] = self._signatures.get(index, "") + reasoning["signature"]
            if isinstance(reasoning.get("redactedContent"), str):
                self._redacted.add(index)
                self._signatures[index] = self._signatures.get(index, "") + reasoning["redactedContent"]
            return events
        use = delta.get("toolUse")
        if isinstance(use, dict) and isinstance(use.get("input"), str):
            if kind == "tool":
                return [ToolCallDelta(key, use["input"])] if use["input"] else []
            if kind == "server":
                self._server[index].input.append(use["input"])
            return []
        result = delta.get("toolResult")
        if kind == "server" and isinstance(result, list):
            self._server[index].content.extend(result)
        return []

    def _stop(self, index: int) -> list[ProviderEvent]:
        key = str(index)
        kind = self._kinds.pop(index, None)
        if kind == "text":
            return [TextEnd(key)]
        if kind == "thinking":
            signature = self._signatures.pop(index, "") or None
            return [ThinkingEnd(key, signature=signature, redacted=index in self._redacted)]
        if kind == "tool":
            return [ToolCallEnd(key)]
        if kind == "server":
            return [OpaqueBlock(data=self._server.pop(index).finish())]
        return []

    def finish(self) -> list[ProviderEvent]:
        if self.stop_reason is None:
            raise stream_ended_early("no messageStop")
        blocked = _BLOCKED.get(self.stop_reason)
        if blocked is not None:
            raise ProviderError(f"Bedrock stopped the reply ({self.stop_reason}): {blocked}.", kind="fatal")
        events: list[ProviderEvent] = [ToolCallEnd(str(i)) for i, kind in self._kinds.items() if kind == "tool"]
        self._kinds.clear()
        stop = _STOP_REASONS.get(self.stop_reason, "stop")
        events.append(Done(stop_reason=stop, response_id=self.response_id))  # type: ignore[arg-type]
        return events
