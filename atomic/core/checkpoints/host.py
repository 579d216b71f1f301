"""What the checkpoint component needs from the session around it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from atomic.core.events import Event
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings


class _Files(Protocol):
    @property
    def session_dir(self) -> Path | None: ...


class _Compaction(Protocol):
    @property
    def is_compacting(self) -> bool: ...


class _Bash(Protocol):
    @property
    def is_running(self) -> bool: ...


class CheckpointHost(Protocol):
    """The session's files, compaction and bash are asked whether a restore may run now."""

    @property
    def cwd(self) -> Path: ...
    @property
    def agent_dir(self) -> Path: ...
    @property
    def files(self) -> _Files: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def is_streaming(self) -> bool: ...
    @property
    def compaction(self) -> _Compaction: ...
    @property
    def bash(self) -> _Bash: ...

    def emit(self, event: Event) -> None: ...
    def notify_once(self, key: str, message: str) -> None: ...
