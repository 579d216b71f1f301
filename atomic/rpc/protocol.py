"""Typed RPC commands: one pydantic model per command type, parsed from a JSON line.

The request `id` never goes through pydantic: it is taken from the line as sent (a string or a
number, echoed byte for byte for numbers with a fraction or exponent) and anything else is refused,
so `true` can never come back as `1` and `2.50` never as `2.5`.
"""

import json
from collections.abc import Mapping
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from atomic.core.messages import ImageContent


class JsonNumber(float):
    """A JSON number with a fraction or exponent that remembers how it was written."""

    __slots__ = ("text",)
    text: str

    def __new__(cls, text: str) -> "JsonNumber":
        number = super().__new__(cls, float(text))
        number.text = text
        return number


class _NoId:
    """Marker: the request had no `id` member (as opposed to an invalid one such as null)."""

    def __repr__(self) -> str:
        return "NO_ID"


NO_ID: Any = _NoId()


class Command(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)
    # Set by parse_command from the raw line (None: the request had no id).
    id: str | int | float | None = None


QueueMode = Literal["all", "one-at-a-time"]
Level = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]


class Prompt(Command):
    type: Literal["prompt"]
    message: str
    images: list[ImageContent] | None = None
    streaming_behavior: Literal["steer", "followUp"] | None = Field(None, alias="streamingBehavior")


class Steer(Command):
    type: Literal["steer"]
    message: str
    images: list[ImageContent] | None = None


class FollowUp(Command):
    type: Literal["follow_up"]
    message: str
    images: list[ImageContent] | None = None


class Abort(Command):
    type: Literal["abort"]


class ClearQueue(Command):
    type: Literal["clear_queue"]


class NewSession(Command):
    type: Literal["new_session"]
    parent_session: str | None = Field(None, alias="parentSession")


class GetState(Command):
    type: Literal["get_state"]


class GetMessages(Command):
    type: Literal["get_messages"]


class SetModel(Command):
    type: Literal["set_model"]
    provider: str
    model_id: str = Field(alias="modelId")
    persist: bool = False


class CycleModel(Command):
    type: Literal["cycle_model"]
    persist: bool = False


class GetAvailableModels(Command):
    type: Literal["get_available_models"]


class LogoutProvider(Command):
    type: Literal["logout_provider"]
    provider: str


class SetThinkingLevel(Command):
    type: Literal["set_thinking_level"]
    level: Level
    persist: bool = False


class CycleThinkingLevel(Command):
    type: Literal["cycle_thinking_level"]


class GetAvailableThinkingLevels(Command):
    type: Literal["get_available_thinking_levels"]


class SetSteeringMode(Command):
    type: Literal["set_steering_mode"]
    mode: QueueMode


class SetFollowUpMode(Command):
    type: Literal["set_follow_up_mode"]
    mode: QueueMode


class Compact(Command):
    type: Literal["compact"]


class SetAutoCompaction(Command):
    type: Literal["set_auto_compaction"]
    enabled: bool


class SetAutoRetry(Command):
    type: Literal["set_auto_retry"]
    enabled: bool


class AbortRetry(Command):
    type: Literal["abort_retry"]


class Bash(Command):
    type: Literal["bash"]
    command: str


class AbortBash(Command):
    type: Literal["abort_bash"]
    request_id: str | int | None = Field(None, alias="requestId")


class GetSessionStats(Command):
    type: Literal["get_session_stats"]


class ExportHtml(Command):
    type: Literal["export_html"]
    output_path: str | None = Field(None, alias="outputPath")


class SwitchSession(Command):
    type: Literal["switch_session"]
    session_path: str = Field(alias="sessionPath")


class Fork(Command):
    type: Literal["fork"]
    entry_id: str = Field(alias="entryId")
    restore_files: bool = Field(False, alias="restoreFiles")


class Clone(Command):
    type: Literal["clone"]


class GetForkMessages(Command):
    type: Literal["get_fork_messages"]


class GetEntries(Command):
    type: Literal["get_entries"]
    since: str | None = None


class GetTree(Command):
    type: Literal["get_tree"]


class GetLastAssistantText(Command):
    type: Literal["get_last_assistant_text"]


class SetSessionName(Command):
    type: Literal["set_session_name"]
    name: str


class ImportSession(Command):
    type: Literal["import_session"]
    input_path: str = Field(alias="inputPath")


class SetLabel(Command):
    type: Literal["set_label"]
    entry_id: str = Field(alias="entryId")
    label: str | None = None


class NavigateTree(Command):
    type: Literal["navigate_tree"]
    target_id: str | None = Field(alias="targetId")
    restore_files: bool = Field(False, alias="restoreFiles")


class AbortCompaction(Command):
    type: Literal["abort_compaction"]


class SetPermissionMode(Command):
    type: Literal["set_permission_mode"]
    mode: Literal["ask", "accept-edits", "yolo", "plan"]
    persist: bool = False


class GetCommands(Command):
    type: Literal["get_commands"]


class GetMcpServers(Command):
    type: Literal["get_mcp_servers"]


class GetCheckpoints(Command):
    type: Literal["get_checkpoints"]


class DiffCheckpoint(Command):
    type: Literal["diff_checkpoint"]
    checkpoint_id: str = Field(alias="checkpointId")


class RestoreCheckpoint(Command):
    type: Literal["restore_checkpoint"]
    checkpoint_id: str = Field(alias="checkpointId")


class ReconnectMcpServer(Command):
    type: Literal["reconnect_mcp_server"]
    name: str


class ExtensionUiResponse(Command):
    type: Literal["extension_ui_response"]
    # Checked against the pending request by the engine (a string "true" is not a confirmation).
    value: Any = None
    confirmed: Any = None
    cancelled: Any = None
    # With confirmed: true on a tool approval: save the request's alwaysRule (docs/rpc.md).
    always: Any = None


def command_type(model: type[Command]) -> str:
    """The `type` a command model accepts (its Literal's one value)."""
    return str(get_args(model.model_fields["type"].annotation)[0])


class CommandError(Exception):
    """A line that is JSON but not a valid command: answered with success false for its command."""

    def __init__(self, command: str, message: str, request_id: Any = NO_ID) -> None:
        super().__init__(message)
        self.command = command
        self.message = message
        self.request_id = request_id


def _describe(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors()[:3]:
        loc = ".".join(str(p) for p in error["loc"]) or "command"
        parts.append(f"{loc}: {error['msg']}")
    return "Invalid command: " + "; ".join(parts)


def _refuse_constant(name: str) -> Any:
    # Python's json accepts NaN and Infinity; JSON does not.
    raise ValueError(f"{name} is not valid JSON")


def load_line(text: str) -> Any:
    """Strict JSON decoding of one line (ValueError or RecursionError when it is not JSON)."""
    return json.loads(text, parse_float=JsonNumber, parse_constant=_refuse_constant)


def _valid_id(value: Any) -> bool:
    # bool is an int subclass: `true` is not a number.
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def parse_command(data: Any, models: Mapping[str, type[Command]]) -> Command:
    """Validate one command object with the model of its `type` (`models`: the declared commands)."""
    if not isinstance(data, dict):
        raise CommandError("parse", "Failed to parse command: a command must be a JSON object")
    kind = data.get("type")
    request_id = data.get("id", NO_ID)
    if request_id is not NO_ID and not _valid_id(request_id):
        name = kind if isinstance(kind, str) else "parse"
        raise CommandError(name, "Invalid id: must be a string or a number", request_id)
    if not isinstance(kind, str):
        raise CommandError("parse", "Failed to parse command: missing \"type\"", request_id)
    model = models.get(kind)
    if model is None:
        raise CommandError(kind, f"Unknown command: {kind}", request_id)
    fields = {key: value for key, value in data.items() if key != "id"}
    try:
        # Each model's validator is built the first time its command arrives: one for the whole
        # union was a share of every start-up.
        command: Command = model.model_validate(fields)
    except ValidationError as exc:
        raise CommandError(kind, _describe(exc), request_id) from exc
    if request_id is not NO_ID:
        command.id = request_id
    return command


def parse_line(text: str, models: Mapping[str, type[Command]]) -> Command:
    """One input line to a command; ValueError/RecursionError for non-JSON, CommandError otherwise."""
    return parse_command(load_line(text), models)
