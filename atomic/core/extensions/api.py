"""The object an extension's `activate(atomic)` receives, and the `ctx` its commands get.

One `ExtensionAPI` per extension: it knows the extension's path, so everything it registers and
every error it causes is attributed to that file.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from atomic.core.agent.queues import QueuedMessage
from atomic.core.events import MessageEnd, MessageStart
from atomic.core.extensions.host import ExtensionHost
from atomic.core.extensions.records import ExtensionRegistry, RegisteredCommand, RegisteredFlag
from atomic.core.extensions.tools import ExtensionTool, content_blocks
from atomic.core.extensions.ui import ExtensionUI
from atomic.core.messages import CustomMessage
from atomic.core.model_types import Model
from atomic.core.tools.base import Tool

DELIVERY_MODES = ("steer", "followUp", "prompt")


def _wants_context(handler: Callable[..., Any]) -> bool:
    """Handlers may be `f(payload)` or `f(payload, ctx)`."""
    try:
        parameters = inspect.signature(handler).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            positional += 1
    return positional >= 2


def _normalize_tool_result_patch(result: Any) -> Any:
    """Let `tool_result` handlers return content as a string or plain dicts; the engine wants blocks."""
    if isinstance(result, dict) and "content" in result:
        patch = dict(result)
        patch["content"] = content_blocks(result["content"])
        return patch
    return result


class ExtensionAPI:
    def __init__(self, runtime: ExtensionRegistry, path: str) -> None:
        self._runtime = runtime
        self.path = path
        self.logger = logging.getLogger(f"atomic.extension.{Path(path).stem}")

    # ------------------------------------------------------------------ basics

    @property
    def session(self) -> ExtensionHost:
        """The engine session itself: an escape hatch for what this API does not cover."""
        return self._runtime.session

    @property
    def cwd(self) -> Path:
        return self.session.cwd

    def log(self, *parts: Any) -> None:
        self.logger.info(" ".join(str(p) for p in parts))

    # ------------------------------------------------------------------ events

    def on(self, event: str, handler: Callable[..., Any]) -> Callable[[], None]:
        """Subscribe to an engine event; returns a function that unsubscribes."""
        if not callable(handler):
            raise TypeError("handler must be callable")
        with_ctx = _wants_context(handler)

        def call(payload: dict[str, Any]) -> Any:
            result = handler(payload, ExtensionContext(self)) if with_ctx else handler(payload)
            if event != "tool_result":
                return result
            if inspect.isawaitable(result):
                return _await_patch(result)
            return _normalize_tool_result_patch(result)

        return self.session.hooks.on(event, call, self.path)

    # ------------------------------------------------------------------ registration

    def register_tool(
        self,
        name: str,
        description: str,
        parameters: Any,
        execute: Callable[..., Any],
        *,
        label: str | None = None,
        prompt_snippet: str | None = None,
        read_only: bool = False,
    ) -> None:
        tool = ExtensionTool(
            name=name,
            description=description,
            parameters=parameters,
            execute=execute,
            extension_path=self.path,
            report_error=self._runtime.report_error,
            label=label,
            prompt_snippet=prompt_snippet,
            read_only=read_only,
        )
        self._runtime.add_tool(tool)

    def register_command(
        self,
        name: str,
        handler: Callable[..., Any],
        *,
        description: str | None = None,
        complete: Callable[[str], Any] | None = None,
    ) -> None:
        name = name.lstrip("/")
        if not name or any(ch.isspace() for ch in name):
            raise ValueError(f"invalid command name: {name!r}")
        def run(args: str) -> Any:
            return handler(args, CommandContext(self))

        self._runtime.add_command(
            RegisteredCommand(
                name=name,
                run=run,
                extension_path=self.path,
                description=description,
                complete=complete,
            )
        )

    def register_flag(self, name: str, *, default: Any = None, description: str = "") -> None:
        self._runtime.add_flag(RegisteredFlag(name.lstrip("-"), default, description, self.path))

    def get_flag(self, name: str) -> Any:
        return self._runtime.flag_value(name.lstrip("-"))

    # ------------------------------------------------------------------ tools

    @property
    def active_tools(self) -> list[str]:
        return list(self.session.toolset.active_tool_names)

    @property
    def all_tools(self) -> list[Tool]:
        return list(self.session.toolset.tools.values())

    def set_active_tools(self, names: list[str]) -> None:
        unknown = [n for n in names if n not in self.session.toolset.tools]
        if unknown:
            raise ValueError(f"Unknown tools: {', '.join(unknown)}")
        self.session.toolset.set_active_tools(list(names))

    # ------------------------------------------------------------------ messages

    def send_user_message(self, text: str, deliver_as: str = "steer") -> None:
        """Send text as if the user typed it. While the agent runs it is queued (steer or followUp)."""
        if deliver_as not in DELIVERY_MODES:
            raise ValueError(f"deliver_as must be one of {DELIVERY_MODES}")
        session = self.session
        if session.is_streaming:
            queue = session.follow_ups if deliver_as == "followUp" else session.steering
            queue.push(QueuedMessage(text, []))
            session.queue_changed()
            # A message queued after the loop's last look at the queues (say from an `agent_end`
            # handler) would otherwise wait for the next prompt.
            session.continue_queue_after_run()
            return
        session.models.ensure_can_prompt()
        session.start_run([QueuedMessage(text, [])])

    def send_message(
        self,
        custom_type: str,
        content: Any,
        display: bool = True,
        details: Any = None,
        trigger_turn: bool = False,
    ) -> CustomMessage:
        """Put a custom message into the conversation (the model sees it as user text).

        While the agent runs, the message is stored once the run ends, so it never separates an
        assistant turn from its tool results. With `trigger_turn` an idle agent starts a run.
        """
        body = content if isinstance(content, str) else content_blocks(content)
        message = CustomMessage(custom_type=custom_type, content=body, display=display, details=details)
        session = self.session
        session.emit(MessageStart(message=message))
        session.record_or_defer(message)
        session.emit(MessageEnd(message=message))
        if trigger_turn and not session.is_streaming:
            session.models.ensure_can_prompt()
            session.start_run([])
        return message

    def append_entry(self, custom_type: str, data: Any = None) -> dict[str, Any]:
        """Store extension state in the session file (a `custom` entry the model never sees).

        Like every entry it becomes the leaf's child and the new leaf, so it stays on the current
        branch; the context builder skips it.
        """
        return self.session.store.append("custom", customType=custom_type, data=data)

    def custom_entries(self, custom_type: str | None = None) -> list[dict[str, Any]]:
        """The `custom` entries on the current branch (oldest first), e.g. to restore state."""
        out = []
        for record in self.session.store.path_to():
            if record.type == "custom" and (custom_type is None or record.data.get("customType") == custom_type):
                out.append(record.data)
        return out

    # ------------------------------------------------------------------ session

    def set_session_name(self, name: str) -> None:
        self.session.files.set_session_name(name)

    def get_session_name(self) -> str | None:
        return self.session.store.name()

    def set_label(self, entry_id: str, label: str | None) -> None:
        self.session.files.set_label(entry_id, label)

    @property
    def model(self) -> Model | None:
        return self.session.model

    @property
    def thinking_level(self) -> str:
        return self.session.models.thinking_level

    def set_model(self, provider: str, model_id: str) -> Model:
        return self.session.models.set_model(provider, model_id)

    def set_thinking_level(self, level: str) -> str:
        self.session.models.set_thinking_level(level)
        return self.session.models.thinking_level

    def get_commands(self) -> list[dict[str, Any]]:
        """Extension commands, prompt templates and skills, as `get_commands` lists them."""
        items = self._runtime.command_items()
        resources = self.session.toolset.resources
        if resources is not None:
            items.extend(asdict(c) for c in resources.commands())
        return items

    @property
    def ui(self) -> ExtensionUI:
        """Dialogs, notifications, status-line entries, widgets and the terminal title (docs/extensions.md)."""
        return ExtensionUI(self.session.extension_ui, self.path)

    def notify(self, message: str, level: str = "info") -> None:
        """Show a message in the frontend; `level` is "info", "warning" or "error"."""
        self.ui.notify(message, level)


async def _await_patch(result: Any) -> Any:
    return _normalize_tool_result_patch(await result)


class ExtensionContext:
    """The `ctx` passed to command handlers (and to event handlers that take a second argument)."""

    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api

    @property
    def cwd(self) -> Path:
        return self.api.cwd

    @property
    def session(self) -> ExtensionHost:
        return self.api.session

    @property
    def model(self) -> Model | None:
        return self.api.model

    @property
    def ui(self) -> ExtensionUI:
        """`await ctx.ui.confirm(...)`, `ctx.ui.set_status(...)`, ...: see docs/extensions.md."""
        return self.api.ui

    @property
    def has_ui(self) -> bool:
        """True when a frontend that answers dialogs is attached (the TUI or an RPC client)."""
        return self.api.ui.has_ui

    def notify(self, message: str, level: str = "info") -> None:
        """Show a message in the frontend (TUI notification; an `extension_ui_request` line in RPC)."""
        self.api.notify(message, level)

    def is_idle(self) -> bool:
        return not self.session.is_streaming

    def has_pending_messages(self) -> bool:
        return bool(len(self.session.steering) or len(self.session.follow_ups))

    async def abort(self) -> None:
        await self.session.abort()

    async def wait_for_idle(self) -> None:
        await self.session.wait_idle()


# Commands and event handlers share one context type.
CommandContext = ExtensionContext


@dataclass
class LoadedExtension:
    path: str
    module_name: str
    api: ExtensionAPI
    module: ModuleType | None = None
