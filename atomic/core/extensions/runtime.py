"""The extension runtime: what the engine sees as `session.extensions`.

It holds everything the loaded extensions registered (commands, flags, tools) and answers the
engine's questions: is this text an extension command, run it, list commands for `get_commands`,
complete a command's arguments. Every failure inside extension code is reported as an
`extension_error` event and never reaches the caller.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atomic.core.events import ExtensionError
from atomic.core.extensions.api import LoadedExtension
from atomic.core.extensions.host import ExtensionHost
from atomic.core.extensions.records import RegisteredCommand, RegisteredFlag
from atomic.core.extensions.tools import ExtensionTool

if TYPE_CHECKING:
    from atomic.core.records import CommandInfo

_COMMAND_TEXT = re.compile(r"/(\S+)(?:\s+(.*))?\Z", re.DOTALL)


@dataclass
class ExtensionRuntime:
    session: ExtensionHost
    flag_values: dict[str, Any] = field(default_factory=dict)
    extensions: list[LoadedExtension] = field(default_factory=list)
    registered_commands: dict[str, RegisteredCommand] = field(default_factory=dict)
    flags: dict[str, RegisteredFlag] = field(default_factory=dict)
    tools: dict[str, ExtensionTool] = field(default_factory=dict)
    # (path, event, error) of every failure, kept because load-time errors happen before any
    # frontend has subscribed to the session's events.
    errors: list[tuple[str, str, str]] = field(default_factory=list)

    # ------------------------------------------------------------------ errors

    def report_error(self, path: str, event: str, error: str) -> None:
        self.errors.append((path, event, error))
        self.session.emit(ExtensionError(extension_path=path, event=event, error=error))

    # ------------------------------------------------------------------ tools

    def add_tool(self, tool: ExtensionTool) -> None:
        """Make the tool active (replacing a built-in of the same name) and refresh the system prompt."""
        self.tools[tool.name] = tool
        self.session.toolset.add_tool(tool)

    # ------------------------------------------------------------------ commands

    def add_command(self, command: RegisteredCommand) -> None:
        previous = self.registered_commands.get(command.name)
        if previous is not None and previous.extension_path != command.extension_path:
            self.session.startup_warnings.append(
                f'Extension command "/{command.name}" from {command.extension_path} '
                f"replaces the one from {previous.extension_path}"
            )
        self.registered_commands[command.name] = command

    def _parse(self, text: str) -> tuple[RegisteredCommand, str] | None:
        match = _COMMAND_TEXT.match(text.strip())
        if match is None:
            return None
        command = self.registered_commands.get(match.group(1))
        if command is None:
            return None
        return command, (match.group(2) or "").strip()

    def is_command(self, text: str) -> bool:
        return self._parse(text) is not None

    async def try_run_command(self, text: str) -> bool:
        """Run `/name args` when `name` is an extension command. True when it was one (even if it failed)."""
        parsed = self._parse(text)
        if parsed is None:
            return False
        command, args = parsed
        try:
            result = command.run(args)
            if inspect.isawaitable(result):
                await result
        except Exception as exc:  # a broken command must not break the prompt path
            self.report_error(command.extension_path, f"command:{command.name}", f"{type(exc).__name__}: {exc}")
        return True

    def command_items(self) -> list[dict[str, Any]]:
        """Entries for the `get_commands` response."""
        items = []
        for command in self.registered_commands.values():
            item: dict[str, Any] = {"name": command.name}
            if command.description:
                item["description"] = command.description
            item["source"] = "extension"
            item["path"] = command.extension_path
            items.append(item)
        return items

    def commands(self) -> list[CommandInfo]:
        """The registered commands as frontends list them."""
        from atomic.core.records import CommandInfo

        return [
            CommandInfo(c.name, c.description or None, "extension", c.extension_path)
            for c in self.registered_commands.values()
        ]

    def complete_command(self, name: str, prefix: str) -> list[str]:
        """Argument completions of `/name` for `prefix` (empty when the command has no completer)."""
        command = self.registered_commands.get(name.lstrip("/"))
        if command is None or command.complete is None:
            return []
        try:
            result = command.complete(prefix)
            if inspect.isawaitable(result):
                # Completion runs inside the UI's key handling, which cannot wait; see docs.
                close = getattr(result, "close", None)  # foreign: the extension's awaitable (a coroutine has close)
                if callable(close):
                    close()
                raise TypeError("complete() must be a plain function, not async")
            return [str(item) for item in (result or [])]
        except Exception as exc:
            self.report_error(command.extension_path, f"complete:{command.name}", f"{type(exc).__name__}: {exc}")
            return []

    # ------------------------------------------------------------------ flags

    def add_flag(self, flag: RegisteredFlag) -> None:
        self.flags[flag.name] = flag

    def flag_value(self, name: str) -> Any:
        """The `--name value` given on the command line, typed like the flag's default, else the default."""
        flag = self.flags.get(name)
        default = flag.default if flag is not None else None
        if name not in self.flag_values:
            return default
        return coerce_flag(self.flag_values[name], default)

    def flag_items(self) -> list[dict[str, Any]]:
        return [
            {"name": f.name, "default": f.default, "description": f.description, "path": f.extension_path}
            for f in self.flags.values()
        ]


def coerce_flag(value: Any, default: Any) -> Any:
    """CLI values arrive as strings (or True for a bare `--flag`); match the declared default's type."""
    if not isinstance(value, str):
        return value
    if isinstance(default, bool):
        return value.strip().lower() not in ("false", "0", "no", "off", "")
    if isinstance(default, int):
        try:
            return int(value)
        except ValueError:
            return default
    if isinstance(default, float):
        try:
            return float(value)
        except ValueError:
            return default
    return value
