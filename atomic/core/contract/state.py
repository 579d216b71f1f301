"""The records a frontend reads at start-up: the engine's state (`get_state`) and the project trust
status it carries.

Kept apart from records.py so that the first answer after start does not pay for defining every
other record (a frozen dataclass costs about a millisecond to define; records.py holds twenty).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.model_types import Model
from atomic.core.sandbox.control import SandboxStatus

if TYPE_CHECKING:
    from atomic.core.tools.todo import TodoItem


@dataclass(frozen=True)
class ModelFallback:
    """Why prompts are refused at start-up: the saved default model cannot be used."""

    reason: str  # "configured-provider-unsupported" | "configured-model-unsupported" | "configured-model-unavailable"
    message: str  # the whole sentence shown to the user


@dataclass(frozen=True)
class SessionRecovery:
    """The session file was damaged when it was opened: what was skipped or mended (docs/sessions.md)."""

    message: str  # one sentence for the user, naming the backup
    backup_file: Path | None  # the damaged bytes, kept beside the file (None when it could not be written)
    skipped_lines: tuple[int, ...]  # 1-based line numbers that could not be read
    header_rebuilt: bool  # the first line was not a session header, so one was made up
    relinked_entries: int  # entries whose parent was missing, attached to the entry before them


@dataclass(frozen=True)
class SessionState:
    """The engine's state at one moment (RPC `get_state`)."""

    model: Model | None
    thinking_level: str
    is_streaming: bool
    is_compacting: bool
    steering_mode: str  # "all" | "one-at-a-time"
    follow_up_mode: str
    session_id: str
    session_file: Path | None  # None for an in-memory session (--no-session)
    session_name: str | None
    auto_compaction_enabled: bool
    auto_retry_enabled: bool
    message_count: int  # messages in the context the model sees
    pending_message_count: int  # steering plus follow-up messages waiting
    permission_mode: str  # "ask" | "accept-edits" | "yolo"
    model_fallback: ModelFallback | None  # set while the saved default model blocks prompts
    todos: tuple[TodoItem, ...] = ()  # the branch's to-do list (the `todo` tool)
    session_recovery: SessionRecovery | None = None  # set when the session file was damaged on opening
    sandbox: SandboxStatus | None = None  # the model's commands' sandbox (an Atomic addition to get_state)


@dataclass(frozen=True)
class SkippedResources:
    """One kind of project resource that was not loaded because the folder is not trusted."""

    kind: str  # "settings" | "context files" | "extensions" | "MCP servers" ...
    items: tuple[str, ...]


@dataclass(frozen=True)
class TrustStatus:
    """The project trust decision for the working folder (docs/security.md)."""

    trusted: bool
    source: str  # "flag" | "setting" | "saved" | "once" | "undecided" ...
    cwd: Path
    decided_by: Path | None  # the folder whose saved decision applies
    undecided: bool  # `ask` with nothing saved: an interactive frontend may ask
    description: str  # one line for the user ("trusted (saved for ~/x)")
    # What was not loaded (empty when trusted); None when not asked for (`trust_status(with_skipped=False)`).
    skipped: tuple[SkippedResources, ...] | None
    how_to_trust: str | None  # how to trust the folder, only with `skipped` and when not trusted
