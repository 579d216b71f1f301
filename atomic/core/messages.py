"""Typed conversation messages, exactly as the RPC protocol shows them on the wire."""

import functools
import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, PrivateAttr, TypeAdapter

from atomic.core.wire import WireModel


def now_ms() -> int:
    return int(time.time() * 1000)


# --------------------------------------------------------------------------- content blocks


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(WireModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    # Providers that sign reasoning (Anthropic) need the signature replayed on the next call.
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(WireModel):
    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # Gemini signs the reasoning behind a function call and requires it back on that call (pi's
    # session files name it the same).
    thought_signature: str | None = None
    # Why the streamed arguments could not be read (not JSON, not an object); `arguments` is {}
    # then. In-process only: the tool runner answers the call with it as an error result.
    _arguments_error: str | None = PrivateAttr(default=None)

    @property
    def arguments_error(self) -> str | None:
        return self._arguments_error

    def unreadable_arguments(self, reason: str) -> None:
        self.arguments = {}
        self._arguments_error = reason


UserContentBlock = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContentBlock = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
ToolResultBlock = UserContentBlock


# --------------------------------------------------------------------------- usage


class Cost(WireModel):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)

    def to_wire(self) -> dict[str, Any]:
        # By hand: every streamed delta's message_update carries the usage (see events.py).
        cost = self.cost
        if self.__pydantic_extra__ or cost.__pydantic_extra__:
            return super().to_wire()
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.total_tokens,
            "cost": {
                "input": cost.input,
                "output": cost.output,
                "cacheRead": cost.cache_read,
                "cacheWrite": cost.cache_write,
                "total": cost.total,
            },
        }


StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "pending"]

# Why a provider call failed: `transient` (worth retrying), `overflow` (the context is too long), `auth`,
# `refusal` (the model declined to answer), `fatal` (anything else).
ErrorKind = Literal["transient", "overflow", "auth", "fatal", "refusal"]


# --------------------------------------------------------------------------- messages


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: str | list[UserContentBlock]
    timestamp: int = Field(default_factory=now_ms)


class ProviderBlock(WireModel):
    """A response block Atomic does not show (a server tool call or result, a compaction block),
    kept so the provider can send it back to the same model. `position` is the number of visible
    content blocks before it; `data` is the API's own JSON for the block."""

    position: int
    data: dict[str, Any]


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContentBlock] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "pending"
    error_message: str | None = None
    # Why the call failed (stop_reason "error"), for the frontends of this run: the wire and the session
    # file keep only the message text, so a reloaded message has None here.
    error_kind: ErrorKind | None = Field(default=None, exclude=True)
    response_id: str | None = None
    end_turn: bool | None = None
    provider_blocks: list[ProviderBlock] | None = None
    timestamp: int = Field(default_factory=now_ms)

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    def tool_calls(self) -> list[ToolCall]:
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultBlock] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


class BashExecutionMessage(WireModel):
    _keep_null: ClassVar[frozenset[str]] = frozenset({"fullOutputPath", "exitCode"})

    role: Literal["bashExecution"] = "bashExecution"
    command: str
    output: str
    exit_code: int | None = None
    cancelled: bool = False
    truncated: bool = False
    full_output_path: str | None = None
    # True for `!!cmd`: shown to the user but never sent to the model.
    exclude_from_context: bool | None = None
    timestamp: int = Field(default_factory=now_ms)


class CustomMessage(WireModel):
    """A message an extension put into the conversation; sent to the model as user text."""

    role: Literal["custom"] = "custom"
    custom_type: str
    content: str | list[UserContentBlock]
    display: bool = True
    details: Any = None
    timestamp: int = Field(default_factory=now_ms)


class CompactionSummaryMessage(WireModel):
    """The boundary message that replaces compacted history in the model's context."""

    role: Literal["compactionSummary"] = "compactionSummary"
    summary: str
    tokens_before: int = 0
    timestamp: int = Field(default_factory=now_ms)
    # Atomic's own compactions hold verbatim transcript lines; pi's hold a prose summary. The two are
    # framed differently for the model. Never on the wire: it follows from the session entry.
    verbatim: bool = Field(default=True, exclude=True)


class BranchSummaryMessage(WireModel):
    """pi's summary of a branch the conversation came back from (a `branch_summary` entry)."""

    role: Literal["branchSummary"] = "branchSummary"
    summary: str
    from_id: str = "root"
    timestamp: int = Field(default_factory=now_ms)


AgentMessage = Annotated[
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | BashExecutionMessage
    | CustomMessage
    | CompactionSummaryMessage
    | BranchSummaryMessage,
    Field(discriminator="role"),
]

# Built on first use: building the union's validator at import was a share of every start-up.
@functools.cache
def _message_adapter() -> TypeAdapter[Any]:
    return TypeAdapter(AgentMessage)


def parse_message(data: dict[str, Any]) -> Any:
    """Parse one AgentMessage dict (wire form) into its typed model."""
    return _message_adapter().validate_python(data)


def user_text(message: object) -> str:
    """The plain text of a user or extension (custom) message, images dropped; "" for any other message."""
    if not isinstance(message, (UserMessage, CustomMessage)):
        return ""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(b.text for b in content if isinstance(b, TextContent))
