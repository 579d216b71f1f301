"""The tool interface shared by built-in tools and extension tools.

A tool's `execute` returns a `ToolOutput` or raises `ToolError` (the message becomes an error
tool result the model can read). Abort is asyncio cancellation: a tool that owns processes or
files cleans up in `except asyncio.CancelledError` / `finally` and re-raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from atomic.core.messages import ImageContent, TextContent

if TYPE_CHECKING:
    from atomic.core.sandbox.command import CommandSandbox


class ToolError(Exception):
    """A tool failure whose message is shown to the model as an error result.

    `display` is the message as frontends may show it (with the command's colours), never the model."""

    def __init__(self, message: str, display: str | None = None) -> None:
        super().__init__(message)
        self.display = display


@dataclass(frozen=True)
class FileChange:
    """What a write or edit did to one file, for frontends that show diffs (ACP). Never persisted."""

    path: Path  # absolute
    old_text: str | None  # None: the file did not exist (or was not text)
    new_text: str


@dataclass
class ToolOutput:
    content: list[TextContent | ImageContent]
    details: Any = None
    # In-process only: not part of the tool result the model or the session file sees.
    file_change: FileChange | None = None
    # In-process only: the text as frontends may show it, with the command's colours (SGR sequences,
    # nothing else); None when it is the content's text.
    display: str | None = None

    @classmethod
    def text(cls, text: str, details: Any = None) -> ToolOutput:
        return cls(content=[TextContent(text=text)], details=details)

    def to_wire(self) -> dict[str, Any]:
        return {"content": [b.to_wire() for b in self.content], "details": self.details}


class EditorFiles(Protocol):
    """Files as the user's editor has them, unsaved changes included (ACP's `fs/*` methods).

    read, write and edit go through it for the paths it covers, so the model sees what the user
    sees and the editor tracks the change. Failures raise ToolError.
    """

    def covers(self, path: Path) -> bool: ...
    async def read_text(self, path: Path) -> str: ...
    async def write_text(self, path: Path, text: str) -> None: ...


@dataclass(frozen=True)
class TerminalRun:
    """How a command run in the editor's terminal ended."""

    exit_code: int | None
    signal: str | None = None  # e.g. "SIGTERM" when a signal ended it
    timed_out: bool = False


class EditorTerminal(Protocol):
    """Commands run in the user's editor (ACP `terminal/*`), where the editor shows them live.

    `run` streams the output through `on_output` (text so far is never repeated), kills the
    command on timeout or cancellation, and releases the terminal before it returns."""

    async def run(
        self, call_id: str, command: str, cwd: Path, env: dict[str, str],
        on_output: Callable[[str], None], timeout_s: float | None,
    ) -> TerminalRun: ...


class SubagentLauncher(Protocol):
    """Runs a child agent for the `task` tool (atomic/core/subagents); the result is the tool's output."""

    async def run(
        self, call_id: str, agent_name: str, prompt: str, description: str, on_update: Callable[[ToolOutput], None]
    ) -> ToolOutput: ...


class PlanGate(Protocol):
    """Asks the user to approve the model's plan (the `exit_plan` tool; atomic/core/engine/plan_review.py)."""

    async def review(self, call_id: str, plan: str) -> ToolOutput: ...


@dataclass
class ToolContext:
    cwd: Path
    # Called with the accumulated partial result so far (not a delta).
    on_update: Callable[[ToolOutput], None] = lambda _out: None
    session_id: str | None = None
    shell_path: str | None = None
    shell_command_prefix: str | None = None
    agent_dir: Path | None = None
    # Whether the active model accepts images (read omits image blocks otherwise).
    supports_images: bool = True
    env: dict[str, str] = field(default_factory=dict)
    # The environment the model's commands start from (secrets filtered, atomic/core/shell_env.py);
    # None: the process environment as it is.
    base_env: dict[str, str] | None = None
    # Why read, grep, find and ls must not show a path (None: it may be shown); see permissions/read_guard.py.
    path_guard: Callable[[Path], str | None] = lambda _path: None
    editor_files: EditorFiles | None = None
    # The sandbox for commands and for the write/edit tools' paths (None: none, as in a bare ToolContext).
    sandbox: CommandSandbox | None = None
    # bash runs here instead of locally when a frontend offers it (ACP with acp.clientTerminal).
    editor_terminal: EditorTerminal | None = None
    # Set for the session's own tool calls; None inside a subagent (children start no children).
    subagents: SubagentLauncher | None = None
    plan_review: PlanGate | None = None

    def editor_for(self, path: Path) -> EditorFiles | None:
        """The editor's view of `path` when a frontend offers one that covers it."""
        return self.editor_files if self.editor_files is not None and self.editor_files.covers(path) else None


class Tool:
    name: str = ""
    label: str = ""
    description: str = ""
    # JSON schema of the arguments object.
    parameters: dict[str, Any] = {}
    # A one-line summary for the system prompt's tool list.
    prompt_snippet: str = ""
    # Reads only (never changes files or runs anything): never asked about in any permission mode.
    read_only: bool = False
    # False for a tool that validates its arguments itself, more fully than its schema says (an
    # extension tool with a pydantic model): the tool runner then leaves them to it.
    schema_checked: bool = True

    def prepare_arguments(self, args: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments in the shape `parameters` names, from a shape the tool also accepts
        (an older form, a list sent as a JSON string); run before they are checked against the
        schema. `execute` then gets arguments the schema accepted and checks no types itself."""
        return args

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raise NotImplementedError
