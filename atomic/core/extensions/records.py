"""What extensions register (commands, flags), and the registry an extension's API writes to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from atomic.core.extensions.host import ExtensionHost
from atomic.core.extensions.tools import ExtensionTool


@dataclass
class RegisteredCommand:
    name: str
    # Runs the extension's handler with the argument text and the extension's own context.
    run: Callable[[str], Any]
    extension_path: str
    description: str | None = None
    complete: Callable[[str], Any] | None = None


@dataclass
class RegisteredFlag:
    name: str
    default: Any
    description: str
    extension_path: str


class ExtensionRegistry(Protocol):
    """Where an extension's `register_*` calls land (extensions/runtime.py's ExtensionRuntime)."""

    @property
    def session(self) -> ExtensionHost: ...

    def report_error(self, path: str, event: str, error: str) -> None: ...
    def add_tool(self, tool: ExtensionTool) -> None: ...
    def add_command(self, command: RegisteredCommand) -> None: ...
    def add_flag(self, flag: RegisteredFlag) -> None: ...
    def flag_value(self, name: str) -> Any: ...
    def command_items(self) -> list[dict[str, Any]]: ...
