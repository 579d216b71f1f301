"""One ACP session over one engine session: engine events become `session/update` notifications.

Events arrive synchronously from the engine; updates are queued and sent in order by one task, so a
prompt's answer can wait until every update before it has been written.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentPlanUpdate,
    AvailableCommand,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    Cost,
    CurrentModeUpdate,
    PermissionOption,
    PlanEntryPriority,
    PlanEntryStatus,
    SessionInfoUpdate,
    StopReason,
    ToolCallUpdate,
    UsageUpdate,
)

from atomic.acp.chunks import ChunkCoalescer, SessionUpdate
from atomic.acp.client_terminal import ClientTerminal
from atomic.acp.config import config_options
from atomic.acp.rewind_commands import REWIND_COMMANDS
from atomic.acp.tool_view import (
    diff_content,
    result_text,
    text_content,
    tool_kind,
    tool_locations,
    tool_title,
)
from atomic.core import events as ev
from atomic.core.contract import FRONTEND_COMMANDS, ApprovalRequest, Decision, Engine, needs_approval
from atomic.core.messages import AssistantMessage

# Built-in slash commands an editor can offer (those of every frontend, then ACP's own); the rest come from
# templates, skills and extensions.
BUILTIN_COMMANDS: tuple[tuple[str, str], ...] = (
    *((command.name, command.description) for command in FRONTEND_COMMANDS),
    ("mcp", "MCP servers and their state; /mcp reconnect <name> restarts one"),
    *REWIND_COMMANDS,
)
# bash output sent per update is capped: editors show the tail, the model gets the full result.
_STREAMED_OUTPUT_LIMIT = 64 * 1024

_PERMISSION_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"),
]


def _options_for(request: ApprovalRequest) -> list[PermissionOption]:
    """The four options; "Always allow" names the rule it saves, and is left out when there is none
    (a protected path, a command with expansions): an "always" that allows once would not mean it."""
    rule = request.always_rule
    if rule is None:
        return [option for option in _PERMISSION_OPTIONS if option.option_id != "allow_always"]
    always = PermissionOption(option_id="allow_always", name=f"Always allow ({rule})", kind="allow_always")
    return [_PERMISSION_OPTIONS[0], always, *_PERMISSION_OPTIONS[2:]]


# The option ids above, as the engine's decisions; anything else (a cancelled request) rejects once.
_DECISIONS: dict[str, Decision] = {
    "allow_once": "allow_once", "allow_always": "allow_always",
    "reject_once": "reject_once", "reject_always": "reject_always",
}


_PLAN_STATUS: dict[str, PlanEntryStatus] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
_PLAN_PRIORITY: dict[str, PlanEntryPriority] = {"high": "high", "medium": "medium", "low": "low"}


def plan_update(todos: list[dict[str, str]]) -> AgentPlanUpdate:
    """The to-do list as ACP's plan: the whole list each time, as the protocol asks."""
    return helpers.update_plan(
        helpers.plan_entry(
            todo["content"],
            priority=_PLAN_PRIORITY.get(todo.get("priority", ""), "medium"),
            status=_PLAN_STATUS.get(todo.get("status", ""), "pending"),
        )
        for todo in todos
    )


class SessionBridge:
    def __init__(self, conn: Any, engine: Engine, session_id: str) -> None:
        self.conn = conn
        self.engine = engine
        self.session_id = session_id
        self.cwd = Path(engine.cwd)
        self._queue: asyncio.Queue[SessionUpdate] = asyncio.Queue()
        self._chunks = ChunkCoalescer(self._queue.put_nowait)
        self._tasks: set[asyncio.Task[Any]] = set()
        # Set when bash runs in the client's terminals: those calls show the terminal, not text.
        self.terminal: ClientTerminal | None = None
        self._sender = asyncio.ensure_future(self._send_loop())
        self._settled: asyncio.Future[None] | None = None
        self.cancelled = False
        self.prompt_lock = asyncio.Lock()
        self._unsubscribe = engine.subscribe(self._on_event)
        engine.set_approver(self._approve)

    # ------------------------------------------------------------------ sending

    async def _send_loop(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(session_id=self.session_id, update=update)
            except Exception:  # a client that went away must not stop the engine
                pass
            finally:
                self._queue.task_done()

    def send(self, update: SessionUpdate) -> None:
        self._chunks.flush()  # text streamed before this update is sent before it
        self._queue.put_nowait(update)

    async def flush(self) -> None:
        self._chunks.flush()
        await self._queue.join()

    def background(self, work: Any) -> None:
        """Run a coroutine for this session; it is cancelled when the session closes."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        self._unsubscribe()
        self._chunks.close()
        for task in list(self._tasks):
            task.cancel()
        self.engine.set_approver(None)
        await self.flush()
        self._sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._sender

    # ------------------------------------------------------------------ state updates

    def send_config(self) -> None:
        self.send(ConfigOptionUpdate(session_update="config_option_update", config_options=config_options(self.engine)))

    def send_commands(self) -> None:
        commands = [AvailableCommand(name=name, description=text) for name, text in BUILTIN_COMMANDS]
        commands += [AvailableCommand(name=c.name, description=c.description or c.name) for c in self.engine.commands()]
        self.send(AvailableCommandsUpdate(session_update="available_commands_update", available_commands=commands))

    def send_usage(self) -> None:
        usage = self.engine.context_usage()
        if usage is None:
            return
        cost = self.engine.session_stats().cost
        self.send(UsageUpdate(
            session_update="usage_update",
            used=int(usage.tokens or 0),
            size=int(usage.context_window or 0),
            cost=Cost(amount=float(cost), currency="USD"),
        ))

    # ------------------------------------------------------------------ events

    def _on_event(self, event: ev.Event) -> None:
        if event.parent_tool_call_id is not None:
            return  # a subagent's events: its `task` tool call streams them as content
        match event:
            case ev.MessageUpdate():
                self._on_delta(event.assistant_message_event)
            case ev.MessageEnd(message=AssistantMessage()):
                self.send_usage()
            case ev.ToolExecutionStart():
                self._on_tool_start(event)
            case ev.ToolExecutionUpdate():
                self._on_tool_update(event)
            case ev.ToolExecutionEnd():
                self._on_tool_end(event)
            case ev.TodoUpdate():
                self.send(plan_update(event.todos))
            case ev.SessionInfoChanged():
                self.send(SessionInfoUpdate(session_update="session_info_update", title=event.name))
            case ev.PermissionModeChanged():
                self.send(CurrentModeUpdate(session_update="current_mode_update", current_mode_id=event.mode))
                self.send_config()
            case ev.ModelChanged() | ev.ThinkingLevelChanged():
                self.send_config()
            case ev.AgentSettled() if self._settled is not None and not self._settled.done():
                self._settled.set_result(None)

    def _on_delta(self, delta: ev.AssistantMessageEvent) -> None:
        if not delta.delta:
            return
        if delta.type == "text_delta":
            self._chunks.add("text", delta.delta)
        elif delta.type == "thinking_delta":
            self._chunks.add("thought", delta.delta)

    def _on_tool_start(self, event: ev.ToolExecutionStart) -> None:
        args = event.args if isinstance(event.args, dict) else {}
        self.send(helpers.start_tool_call(
            event.tool_call_id,
            tool_title(event.tool_name, args),
            kind=tool_kind(event.tool_name),
            status="pending",
            locations=tool_locations(self.cwd, event.tool_name, args),
            raw_input=args,
        ))
        if not needs_approval(self.engine.permission_mode, event.tool_name):
            self.send(helpers.update_tool_call(event.tool_call_id, status="in_progress"))

    def _on_tool_update(self, event: ev.ToolExecutionUpdate) -> None:
        if self.terminal is not None and self.terminal.terminal_of(event.tool_call_id) is not None:
            return  # the client's terminal shows the output live
        output = result_text(event.partial_result)[-_STREAMED_OUTPUT_LIMIT:]
        self.send(helpers.update_tool_call(event.tool_call_id, status="in_progress", content=text_content(output)))

    def _on_tool_end(self, event: ev.ToolExecutionEnd) -> None:
        change = event.file_change
        content = diff_content(change) if change is not None and not event.is_error else text_content(
            result_text(event.result)
        )
        terminal_id = self.terminal.terminal_of(event.tool_call_id) if self.terminal is not None else None
        if terminal_id is not None:
            content = [helpers.tool_terminal_ref(terminal_id)]
        self.send(helpers.update_tool_call(
            event.tool_call_id,
            status="failed" if event.is_error else "completed",
            content=content,
            raw_output=event.result,
        ))

    # ------------------------------------------------------------------ approvals

    async def _approve(self, request: ApprovalRequest) -> Decision:
        await self.flush()  # the client knows the tool call before it is asked about it
        tool_call = ToolCallUpdate(
            tool_call_id=request.tool_call_id,
            title=request.title,
            kind=tool_kind(request.tool_name),
            status="pending",
            raw_input=request.args,
        )
        options = _options_for(request)
        response = await self.conn.request_permission(session_id=self.session_id, tool_call=tool_call, options=options)
        outcome = response.outcome
        option = outcome.option_id if outcome.outcome == "selected" else None
        # Only an option that was offered counts: an "always" the client made up rejects.
        offered = {choice.option_id for choice in options}
        decision = _DECISIONS.get(str(option), "reject_once") if option in offered else "reject_once"
        if decision in ("allow_once", "allow_always"):
            self.send(helpers.update_tool_call(request.tool_call_id, status="in_progress"))
        return decision

    # ------------------------------------------------------------------ prompting

    def expect_settle(self) -> asyncio.Future[None]:
        self._settled = asyncio.get_running_loop().create_future()
        return self._settled

    def stop_reason(self) -> tuple[StopReason, str | None]:
        """ACP's stop reason for the finished run, and the error message when it failed instead."""
        if self.cancelled:
            return "cancelled", None
        last = next((m for m in reversed(self.engine.messages()) if isinstance(m, AssistantMessage)), None)
        if last is None:
            return "end_turn", None
        if last.stop_reason == "aborted":
            return "cancelled", None
        if last.stop_reason == "length":
            return "max_tokens", None
        if last.stop_reason == "error":
            if last.error_kind == "refusal":
                return "refusal", None
            return "end_turn", last.error_message or "The model request failed"
        return "end_turn", None
