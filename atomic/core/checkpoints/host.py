"""What the checkpoint component needs from the session around it."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from atomic.core.events import Event
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings


class CheckpointHost(Protocol):
    @property
    def cwd(self) -> Path: ...
    @property
    def agent_dir(self) -> Path: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def is_streaming(self) -> bool: ...
    @property
    def is_compacting(self) -> bool: ...
    @property
    def is_bash_running(self) -> bool: ...

    def emit(self, event: Event) -> None: ...
    def notify_once(self, key: str, message: str) -> None: ...
