"""The one streaming interface every provider implements.

A provider turns a `StreamRequest` into an async stream of small `ProviderEvent`s. It does not
build the AssistantMessage itself: the engine's assembler (`atomic.core.agent.assembler`) does,
so content indices, final tool-call JSON parsing, cost and the wire events are the same for
every API.

Blocks are identified by a provider-local `key` (any string unique within one response, e.g.
Anthropic's content-block index or an OpenAI tool-call index). The assembler maps keys to
content indices in the order blocks start.

Errors are raised as `ProviderError`. `asyncio.CancelledError` (abort) must propagate; a
provider closes its HTTP stream in a `finally`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from atomic.core.messages import ErrorKind, Usage
from atomic.core.model_types import Model

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class StreamRequest:
    model: Model
    system_prompt: str
    # LLM-ready messages only: UserMessage, AssistantMessage, ToolResultMessage.
    messages: list[Any]
    tools: list[ToolSpec] = field(default_factory=list)
    thinking_level: str = "off"
    api_key: str | None = None
    # Resolved extra headers (model/provider headers with env/!command values already applied).
    headers: dict[str, str] = field(default_factory=dict)
    max_tokens: int | None = None
    timeout_s: float | None = None
    session_id: str | None = None
    # Thinking budgets override per level (settings `thinkingBudgets`).
    thinking_budgets: dict[str, int] | None = None
    # The provider's own web search tool (the `webSearch` setting), where the API has one.
    web_search: bool = False


# ----------------------------------------------------------------------------- events


@dataclass
class TextStart:
    key: str


@dataclass
class TextDelta:
    key: str
    delta: str


@dataclass
class TextEnd:
    key: str
    signature: str | None = None


@dataclass
class ThinkingStart:
    key: str


@dataclass
class ThinkingDelta:
    key: str
    delta: str


@dataclass
class ThinkingEnd:
    key: str
    signature: str | None = None
    redacted: bool = False


@dataclass
class ToolCallStart:
    key: str
    id: str
    name: str


@dataclass
class ToolCallDelta:
    key: str
    # A chunk of the JSON arguments text.
    delta: str


@dataclass
class ToolCallEnd:
    key: str
    # Gemini's thoughtSignature on the functionCall part.
    signature: str | None = None


@dataclass
class UsageUpdate:
    """Cumulative provider-reported token counts so far (cost is filled in by the engine)."""

    usage: Usage


@dataclass
class OpaqueBlock:
    """A finished response block the transcript does not show but the API needs back: server tool
    calls and their results, compaction blocks. `data` is the block as the API will accept it
    again; the assembler keeps it on the message (`provider_blocks`) at its place among the
    visible blocks, and the provider replays it to the same model."""

    data: dict[str, Any]


@dataclass
class Done:
    stop_reason: Literal["stop", "length", "toolUse"]
    response_id: str | None = None
    # Only from an explicit end-of-turn field on the wire (OpenAI Codex `end_turn`); None when the
    # API has none. A stop reason (Anthropic `end_turn`, Chat Completions `stop`) is not one.
    end_turn: bool | None = None
    # The server paused a long turn (Anthropic `pause_turn`): the loop sends the conversation again,
    # this message included, and the model continues where it stopped.
    paused: bool = False


ProviderEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
    | UsageUpdate
    | OpaqueBlock
    | Done
)


class ProviderError(Exception):
    """A failed provider call.

    kind: `transient` (worth retrying: overloaded, rate limit, 5xx, connection dropped, stream
    ended early), `overflow` (context too long: compact, don't retry blindly), `auth`, `refusal` (the model
    declined: not retried, frontends show it as a refusal), `fatal`.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: ErrorKind = "fatal",
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status
        self.retry_after_s = retry_after_s


class Provider(Protocol):
    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]: ...
