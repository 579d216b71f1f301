"""Engine events. Their `to_wire()` JSON is exactly what the RPC protocol streams on stdout."""

from typing import Any, ClassVar, Literal

from pydantic import Field

from atomic.core.messages import Usage
from atomic.core.wire import WireModel


class Event(WireModel):
    type: str
    # Set on the events of a subagent (the `task` tool call that runs it); None for the session's own.
    parent_tool_call_id: str | None = None


class AgentStart(Event):
    type: Literal["agent_start"] = "agent_start"


class AgentEnd(Event):
    type: Literal["agent_end"] = "agent_end"
    messages: list[Any] = Field(default_factory=list)


class AgentSettled(Event):
    """The prompt's work is over: retries, overflow compaction, threshold compaction and queued
    follow-ups have all run. pi-compatible clients (and ACP) end a turn on this, not on agent_end."""

    type: Literal["agent_settled"] = "agent_settled"


class TurnStart(Event):
    type: Literal["turn_start"] = "turn_start"


class TurnEnd(Event):
    type: Literal["turn_end"] = "turn_end"
    message: Any = None
    tool_results: list[Any] = Field(default_factory=list)


class MessageStart(Event):
    type: Literal["message_start"] = "message_start"
    message: Any


class AssistantMessageEvent(WireModel):
    """One streaming delta. `content` is set on *_end, `toolCall` on toolcall_end, `reason` on done/error."""

    type: Literal[
        "start",
        "text_start",
        "text_delta",
        "text_end",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
        "done",
        "error",
    ]
    content_index: int | None = None
    delta: str | None = None
    content: str | None = None
    tool_call: Any = None
    reason: str | None = None
    error_message: str | None = None

    def to_wire(self) -> dict[str, Any]:
        # Built by hand: one of these goes out per streamed delta, and the generic pydantic dump
        # cost more than the rest of the delta's path (pinned equal to it by the events tests).
        if self.__pydantic_extra__:
            return super().to_wire()
        data: dict[str, Any] = {"type": self.type}
        if self.content_index is not None:
            data["contentIndex"] = self.content_index
        if self.delta is not None:
            data["delta"] = self.delta
        if self.content is not None:
            data["content"] = self.content
        if self.tool_call is not None:
            data["toolCall"] = self.tool_call
        if self.reason is not None:
            data["reason"] = self.reason
        if self.error_message is not None:
            data["errorMessage"] = self.error_message
        return data


class MessageUpdate(Event):
    type: Literal["message_update"] = "message_update"
    usage: Usage
    assistant_message_event: AssistantMessageEvent
    end_turn: bool | None = None

    def to_wire(self) -> dict[str, Any]:
        # By hand for the same reason as AssistantMessageEvent.to_wire.
        if self.__pydantic_extra__ or self.parent_tool_call_id is not None:
            return super().to_wire()
        data: dict[str, Any] = {
            "type": "message_update",
            "usage": self.usage.to_wire(),
            "assistantMessageEvent": self.assistant_message_event.to_wire(),
        }
        if self.end_turn is not None:
            data["endTurn"] = self.end_turn
        return data


class MessageEnd(Event):
    type: Literal["message_end"] = "message_end"
    message: Any


class ToolExecutionStart(Event):
    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any = None


class ToolExecutionUpdate(Event):
    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any = None
    partial_result: Any = None
    # The partial result's text with the command's colours (SGR sequences only), for in-process frontends;
    # never on the RPC wire.
    display: str | None = Field(default=None, exclude=True)


class ToolExecutionEnd(Event):
    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: Any = None
    is_error: bool = False
    # The write/edit tools' FileChange, for in-process frontends; never on the RPC wire.
    file_change: Any = Field(default=None, exclude=True)
    # The result's text with the command's colours (SGR sequences only), as `ToolExecutionUpdate.display`.
    display: str | None = Field(default=None, exclude=True)


class BashExecutionUpdate(Event):
    type: Literal["bash_execution_update"] = "bash_execution_update"
    id: str | int | float | None = None  # the `bash` command's own id, as the client sent it
    channel: Literal["stdout", "stderr"]
    delta: str


class QueueUpdate(Event):
    type: Literal["queue_update"] = "queue_update"
    steering: list[str] = Field(default_factory=list)
    follow_up: list[str] = Field(default_factory=list)


CompactionReason = Literal["manual", "threshold", "overflow"]


class CompactionStart(Event):
    type: Literal["compaction_start"] = "compaction_start"
    reason: CompactionReason


class CompactionEnd(Event):
    _keep_null: ClassVar[frozenset[str]] = frozenset({"result"})

    type: Literal["compaction_end"] = "compaction_end"
    reason: CompactionReason
    result: Any = None
    aborted: bool = False
    will_retry: bool = False
    error_message: str | None = None
    unresolved_overflow: bool | None = None


class AutoRetryStart(Event):
    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class AutoRetryEnd(Event):
    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class SummarizationRetryScheduled(Event):
    type: Literal["summarization_retry_scheduled"] = "summarization_retry_scheduled"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class SummarizationRetryAttemptStart(Event):
    type: Literal["summarization_retry_attempt_start"] = "summarization_retry_attempt_start"
    source: Literal["compaction", "branchSummary"] = "compaction"
    reason: str | None = None


class SummarizationRetryFinished(Event):
    type: Literal["summarization_retry_finished"] = "summarization_retry_finished"


class ExtensionError(Event):
    type: Literal["extension_error"] = "extension_error"
    extension_path: str
    event: str
    error: str


class ThinkingLevelChanged(Event):
    type: Literal["thinking_level_changed"] = "thinking_level_changed"
    level: str


class PermissionModeChanged(Event):
    type: Literal["permission_mode_changed"] = "permission_mode_changed"
    mode: str


class ModelChanged(Event):
    type: Literal["model_changed"] = "model_changed"
    model: Any = None


class SessionInfoChanged(Event):
    type: Literal["session_info_changed"] = "session_info_changed"
    name: str | None = None


class SessionChanged(Event):
    """The active session was replaced (new, switch, fork, clone). Frontends reload their view."""

    type: Literal["session_changed"] = "session_changed"
    reason: str
    session_file: str | None = None


class CheckpointCreated(Event):
    """The project's files were recorded (before a prompt's first writing tool call, or before a
    restore: then `entry_id` is None)."""

    type: Literal["checkpoint_created"] = "checkpoint_created"
    checkpoint_id: str
    entry_id: str | None = None
    _keep_null: ClassVar[frozenset[str]] = frozenset({"entryId"})


class TodoUpdate(Event):
    """The model's to-do list changed (the `todo` tool, or moving to a branch with another list).

    Atomic's addition to the protocol (docs/rpc.md); `todos` is the whole list.
    """

    type: Literal["todo_update"] = "todo_update"
    todos: list[dict[str, str]] = Field(default_factory=list)
