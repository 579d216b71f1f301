"""What the checkpoint commands answer: frozen, snake_case records (the contract re-exports them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FileStatus = Literal["added", "modified", "deleted"]


class CheckpointError(Exception):
    """A checkpoint command that cannot be done (disabled, busy, unknown id); the message says why."""


@dataclass(frozen=True)
class CheckpointInfo:
    checkpoint_id: str
    entry_id: str | None  # the user message it precedes; None for one taken before a restore
    kind: Literal["prompt", "restore"]
    timestamp: str
    text: str  # the first line of that user message ("" before a restore)
    files: int  # covered files that differ from the next checkpoint (the current files for the newest)


@dataclass(frozen=True)
class ChangedFile:
    path: str
    status: FileStatus


@dataclass(frozen=True)
class CheckpointDiff:
    files: tuple[ChangedFile, ...]
    diff: str  # unified diff, text files only


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class RestoreResult:
    restored: tuple[str, ...]  # files written back (modified ones and ones brought back)
    deleted: tuple[str, ...]  # files removed (created after the checkpoint)
    skipped: tuple[SkippedFile, ...]  # files that could not be restored, with the reason
    undo_checkpoint_id: str  # restoring this one undoes the restore


@dataclass(frozen=True)
class RewindPoint:
    """One prompt of the current branch, for the rewind picker."""

    entry_id: str
    text: str
    checkpoint_id: str | None  # what restoring code to before this prompt uses (None: nothing recorded)
    files: int  # files its run changed (0 when unknown)
