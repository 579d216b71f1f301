"""AgentSession: the run of one session (prompting, the queues, abort, idle, state, event fan-out).

It holds the components (session files, model selection, the toolset, compaction, bash, permission modes,
checkpoints, project trust) and builds each run's config; callers reach a component's own methods through it
(`session.models.set_model`), never through a forwarding method here. Listeners get every engine
event in order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.agent.loop import AgentRun
from atomic.core.agent.queues import MessageQueue, QueuedMessage
from atomic.core.engine import session_stats as stats
from atomic.core.engine.bash_runner import BashRunner
from atomic.core.engine.compaction_runner import CompactionRunner
from atomic.core.engine.errors import PromptRejected
from atomic.core.engine.model_selection import ModelSelection
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.owned_messages import OwnedMessages
from atomic.core.engine.permission_modes import PermissionModes
from atomic.core.engine.plan_review import PlanReview
from atomic.core.engine.project_trust import ProjectTrust
from atomic.core.engine.run_config import run_config
from atomic.core.engine.session_files import SessionFiles
from atomic.core.engine.todos import TodoTracker
from atomic.core.engine.toolset import Toolset
from atomic.core.events import (
    AgentSettled,
    Event,
    ExtensionError,
    QueueUpdate,
)
from atomic.core.extensions.hooks import HookBus, input_hooks
from atomic.core.extensions.ui import ExtensionUiHost
from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.permissions.rule_files import rule_saver, settings_rules
from atomic.core.sandbox.control import SandboxControl
from atomic.core.session.context import ContextItem, SessionContext, build_context
from atomic.core.session.queue_file import QueueJournal, now_ms
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings, SettingsManager
from atomic.core.tools.base import EditorFiles, EditorTerminal
from atomic.core.tools.exit_plan import ExitPlanTool
from atomic.core.tools.todo import TODO_TOOL

if TYPE_CHECKING:
    from atomic.core.checkpoints.manager import Checkpoints
    from atomic.core.extensions.runtime import ExtensionRuntime
    from atomic.core.mcp.manager import McpManager
    from atomic.core.records import CompactionOutcome, ContextUsage, QueueSnapshot
    from atomic.core.subagents.runner import SubagentRunner
    from atomic.core.trust import TrustDecision

Listener = Callable[[Event], None]


__all__ = ["AgentSession", "Listener", "PromptRejected"]

STREAMING_WITHOUT_BEHAVIOR = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
)


class AgentSession:
    def __init__(
        self,
        *,
        cwd: Path,
        agent_dir: Path,
        settings: SettingsManager,
        store: SessionStore,
        session_dir: Path | None,
        options: SessionOptions,
        trust: TrustDecision,
    ) -> None:
        self.cwd = cwd
        self.agent_dir = agent_dir
        self.settings_manager = settings
        self.hooks = HookBus()
        self.hooks.on_error = self._report_extension_error
        self.models = ModelSelection(
            agent_dir=agent_dir,
            settings=settings,
            active_store=lambda: self.store,
            emit=self.emit,
            hooks=self.hooks,
        )
        # The session file in use and what changes it (new, switch, fork, tree, labels).
        self.files = SessionFiles(
            self, cwd=cwd, session_dir=session_dir, store=store, record_model=self.models.record_current,
            restore_queue=lambda: self.queue_journal.restore(self.store.records, self.queue_changed),
        )
        self.listeners: list[Listener] = []
        # Pending extension dialogs, statuses, widgets, title: owned here, presented by a frontend.
        self.extension_ui = ExtensionUiHost(self.emit)
        s = settings.settings
        self.steering = MessageQueue(s.steering_mode)
        self.follow_ups = MessageQueue(s.follow_up_mode)
        # Queued messages are kept on disk beside the session file until they are stored in it.
        self.queue_journal = QueueJournal(lambda: self.store.path, lambda: (self.steering, self.follow_ups))
        self.auto_retry_enabled = s.retry.enabled
        self.auto_compaction_enabled = s.compaction.enabled
        # Which tools are active, and the system prompt built from them and the resources.
        self.toolset = Toolset()
        self.context_items: list[ContextItem] = []
        self.loaded_context = SessionContext()
        self.compacted_since_usage = False
        # The branch's to-do list (the `todo` tool), read from the context items.
        self.todos = TodoTracker(self.emit)
        # Runs the `task` tool's children (installed by the factory when the tool is on).
        self.subagents: SubagentRunner | None = None
        # Direct bash results and extension messages that finish later, stored in their own session.
        self.owned_messages = OwnedMessages(
            active_store=lambda: self.store, is_streaming=lambda: self.is_streaming, record=self.record_message
        )
        self.bash = BashRunner(
            cwd=cwd,
            settings=lambda: self.settings_manager.settings,
            owner_here=self.owned_messages.owner_here,
            store_result=self.owned_messages.store,
        )
        # Approvals go through the extension UI's confirm dialog (RPC clients, the TUI) unless a
        # frontend installs its own approver (ACP's session/request_permission).
        self.permissions = PermissionPolicy(
            approver=self.extension_ui.approve,
            cwd=cwd,
            agent_dir=agent_dir,
            rule_source=lambda: settings_rules(self.settings_manager),
            save_rule=rule_saver(settings),
        )
        # The model's commands run in it (atomic/core/sandbox); the factory applies `--sandbox`.
        self.sandbox = SandboxControl(lambda: self.settings_manager.settings.sandbox, cwd)
        self.permission_modes = PermissionModes(self.permissions, settings, self.emit)
        # Plan mode: `exit_plan` is offered while planning; approving switches back to the mode before.
        self.exit_plan_tool = ExitPlanTool()
        modes = self.permission_modes
        self.plan_review = PlanReview(self.permissions, modes.set_mode, lambda: modes.before_plan)
        # Set by a frontend whose client edits files itself (ACP's fs methods).
        self.editor_files: EditorFiles | None = None
        self.editor_terminal: EditorTerminal | None = None
        self._run_task: asyncio.Task[Any] | None = None
        self._current_run: AgentRun | None = None
        # Set by abort() when queued messages will run next: that run, not this one, settles.
        self._abort_continues_queue = False
        self.startup_warnings: list[str] = []
        self._notices_shown: set[str] = set()
        self.compaction = CompactionRunner(self)
        # The project's files before each prompt's first change (atomic/core/checkpoints); built
        # on first use so that start-up does not import it.
        self._checkpoints: Checkpoints | None = None
        # The loaded extensions and the MCP servers (installed by ProjectTrust).
        self.extensions: ExtensionRuntime | None = None
        # None when no server is configured; where their notices go is kept across trust changes.
        self.mcp: McpManager | None = None
        self.mcp_notice_sink: Callable[[str], None] | None = None
        # The project's trust decision and what it switches on and off (engine/project_trust.py).
        self.trust = ProjectTrust(self, options, trust)

    # ------------------------------------------------------------------ events

    @property
    def settings(self) -> Settings:
        return self.settings_manager.settings

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def emit(self, event: Event) -> None:
        self.emit_to_listeners(event)
        if self.hooks.has(event.type):
            self.hooks.emit_nowait(event.type, {"event": event})

    def emit_to_listeners(self, event: Event) -> None:
        """To the frontends only: a subagent's events are not the session's own for extensions."""
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception as exc:  # a frontend bug must not stop the engine
                self.startup_warnings.append(f"listener error: {exc}")

    def notify_once(self, key: str, message: str) -> None:
        """Tell the user something once per session object and `key`: a warning notification
        (an `extension_ui_request` with method "notify" in RPC mode, a toast in the TUI)."""
        if key in self._notices_shown:
            return
        self._notices_shown.add(key)
        self.extension_ui.notify(message, "warning", None)

    def _report_extension_error(self, path: str, event: str, error: str) -> None:
        self.emit(ExtensionError(extension_path=path, event=event, error=error))

    # ------------------------------------------------------------------ model and thinking level

    @property
    def model(self) -> Model | None:
        return self.models.model

    # ------------------------------------------------------------------ the session file

    @property
    def checkpoints(self) -> Checkpoints:
        if self._checkpoints is None:
            from atomic.core.checkpoints.manager import Checkpoints

            self._checkpoints = Checkpoints(self)
        return self._checkpoints

    @property
    def store(self) -> SessionStore:
        return self.files.store

    def restore_model_from_session(self) -> None:
        """Apply the model and level recorded on the branch just loaded by `reload_context`."""
        ctx = self.loaded_context
        self.models.restore(ctx.provider, ctx.model_id, ctx.thinking_level)

    def context_usage(self) -> ContextUsage | None:
        """Last valid assistant usage plus a chars/4 estimate of what came after it."""
        return stats.context_usage(self.model, self.context_messages(), self.compacted_since_usage)

    # ------------------------------------------------------------------ context

    def reload_context(self) -> None:
        ctx = build_context(self.store)
        # Kept so restoring the model and level does not walk and parse the branch a second time.
        self.loaded_context = ctx
        self.context_items = ctx.items
        self.compacted_since_usage = ctx.compacted_since_usage
        self.todos.refresh(ctx.items)

    def context_messages(self) -> list[Any]:
        return [item.message for item in self.context_items]

    def record_message(self, message: Any) -> None:
        entry = self.store.append("message", message=message.to_wire())
        self.context_items.append(ContextItem(entry["id"], message))
        if isinstance(message, UserMessage) and self._current_run is not None:
            self.checkpoints.user_message_stored(entry["id"])
        if isinstance(message, ToolResultMessage) and message.tool_name == TODO_TOOL:
            self.todos.recorded(self.context_items)
        if isinstance(message, UserMessage):
            self.queue_journal.stored()
        if isinstance(message, AssistantMessage) and message.usage.total_tokens and message.stop_reason not in (
            "error",
            "aborted",
        ):
            self.compacted_since_usage = False

    def queue_changed(self) -> None:
        self.queue_journal.changed()
        self.emit(QueueUpdate(steering=self.steering.texts(), follow_up=self.follow_ups.texts()))

    # ------------------------------------------------------------------ prompting

    @property
    def is_streaming(self) -> bool:
        return self._run_task is not None and not self._run_task.done()

    def _expand(self, text: str) -> str:
        resources = self.toolset.resources
        return text if resources is None else resources.expand(text)

    async def _expand_mcp(self, text: str, images: list[ImageContent]) -> tuple[str, list[ImageContent]]:
        """MCP prompt commands and `@server:uri` resource mentions (mcp/mentions.py)."""
        from atomic.core.mcp.mentions import PromptCommandError

        assert self.mcp is not None
        model = self.model
        try:
            return await self.mcp.expand_input(
                text, images, session_id=self.store.session_id,
                supports_images=bool(model and model.supports_images()) and not self.settings.images.block_images,
            )
        except PromptCommandError as exc:
            raise PromptRejected(str(exc)) from None

    async def prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: str | None = None,
        source: str = "rpc",
    ) -> None:
        """Accept a prompt: start a run, queue it, or run an extension command. Raises PromptRejected."""
        images = list(images or [])
        if self.extensions is not None and await self.extensions.try_run_command(text):
            return
        text, handled = await input_hooks(self.hooks, text, images, source)
        if handled:
            return
        text = self._expand(text)
        if self.mcp is not None:
            text, images = await self._expand_mcp(text, images)
        if self.is_streaming:
            if streaming_behavior == "steer":
                self._queue(self.steering, text, images)
                return
            if streaming_behavior == "followUp":
                self._queue(self.follow_ups, text, images)
                return
            raise PromptRejected(STREAMING_WITHOUT_BEHAVIOR)
        self.models.ensure_can_prompt()
        self.start_run([QueuedMessage(text, images)])

    def _queue(self, queue: MessageQueue, text: str, images: list[ImageContent]) -> None:
        queue.push(QueuedMessage(text, images, now_ms()))
        self.queue_changed()  # on disk (the journal) before the caller acknowledges it

    async def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        self._reject_extension_command(text)
        if not self.is_streaming:
            self.models.ensure_can_prompt()  # before queuing: a refused message must not run later
        self._queue(self.steering, self._expand(text), list(images or []))
        if not self.is_streaming:
            self.start_run([])

    async def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        self._reject_extension_command(text)
        if not self.is_streaming:
            self.models.ensure_can_prompt()  # before queuing: a refused message must not run later
        self._queue(self.follow_ups, self._expand(text), list(images or []))
        if not self.is_streaming:
            self.start_run([])

    def _reject_extension_command(self, text: str) -> None:
        if self.extensions is not None and self.extensions.is_command(text):
            name = text.split()[0]
            raise PromptRejected(f'Extension command "{name}" cannot be queued. Use prompt instead.')

    def start_run(self, items: list[QueuedMessage]) -> asyncio.Task[Any]:
        from atomic.core.agent.loop import user_message_from

        self._flush_deferred()
        pending = [user_message_from(i) for i in items]
        if not items and len(self.follow_ups) and not len(self.steering):
            pending = [user_message_from(i) for i in self.follow_ups.poll()]
            self.queue_changed()
        # Write, then tell: the messages are on disk before the caller (the `prompt` response) says
        # they were accepted; the run only announces them (message_start / message_end). Steering
        # the run takes first is on disk already, in the queue journal.
        for message in pending:
            self.record_message(message)
        # The prompt the run's checkpoint belongs to: the latest user message stored for it.
        prompt_entry = self.store.leaf_id if pending else None
        run = AgentRun(run_config(self), recorded=pending)
        self._current_run = run

        base_prompt = self.toolset.system_prompt

        async def runner() -> None:
            try:
                # Yield once: whoever started the run (the RPC `prompt` handler) answers before the run's
                # first step builds and sends the request.
                await asyncio.sleep(0)
                self.checkpoints.begin_run(prompt_entry)
                if self.hooks.has("before_agent_start"):
                    await self._before_agent_start(pending)
                await run.run(pending)
            finally:
                # An extension's system prompt change lasts for this run only.
                self.toolset.system_prompt = base_prompt
                self._current_run = None
                self._flush_deferred()
                await self.after_run(run)
                if self._abort_continues_queue:
                    self._abort_continues_queue = False
                else:
                    self.emit(AgentSettled())

        self._run_task = asyncio.ensure_future(runner())
        return self._run_task

    async def _before_agent_start(self, pending: list[Any]) -> None:
        payload = {"prompt": pending, "systemPrompt": self.toolset.system_prompt}
        for result in await self.hooks.emit("before_agent_start", payload):
            if isinstance(result, dict) and isinstance(result.get("systemPrompt"), str):
                self.toolset.system_prompt = result["systemPrompt"]

    async def after_run(self, run: AgentRun) -> None:
        """After a run: threshold compaction, then nothing else (queued messages wait for the next run)."""
        if not run.aborted and self.compaction.needs_threshold_compaction():
            await self.compaction.compact_for("threshold", False)

    def _flush_deferred(self) -> None:
        # Direct bash results that finished while the agent streamed are stored once it is idle,
        # so they never split an assistant message from its tool results.
        if self._current_run is None:
            self.owned_messages.flush()

    def record_or_defer(self, message: Any) -> None:
        """Add a message to the active session now, or once the running turn has ended."""
        self.owned_messages.store(self.owned_messages.owner_here(), message)

    # ------------------------------------------------------------------ compaction

    async def compact(self) -> CompactionOutcome:
        """Manual compaction (RPC `compact`, TUI `/compact`). Raises CompactionFailed with a clear message."""
        if self.is_streaming:
            await self.abort()
        return await self.compaction.compact()

    async def wait_idle(self) -> None:
        while self._run_task is not None and not self._run_task.done():
            await asyncio.shield(self._run_task)

    async def abort(self, continue_queue: bool = True) -> None:
        """Cancel the stream, tools, retry wait and compaction; return when idle.

        Messages still queued afterwards run next (`continue_queue`), unless the caller is about to
        replace or close the session: then they stay queued for the next prompt."""
        self.compaction.cancel()
        self.extension_ui.cancel_all()
        task = self._run_task
        if task is not None and not task.done():
            if self._current_run is not None:
                self._current_run.cancel_retry()
            self._abort_continues_queue = continue_queue and bool(len(self.steering) or len(self.follow_ups))
            task.cancel()
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:
                # Our own cancellation of the run surfaces here; the run itself has finished cleanly.
                if not task.done():
                    raise
        await self.compaction.wait_idle()
        if continue_queue and (len(self.steering) or len(self.follow_ups)):
            # "abort continues queued messages": what is still queued runs next, after the response.
            asyncio.get_running_loop().call_soon(self._continue_queued)

    def continue_queue_after_run(self) -> None:
        """Once the current run ends, run what is queued (a message queued after the loop's last look
        at the queues would otherwise wait for the next prompt)."""
        task = self._run_task
        if task is None:
            return
        loop = asyncio.get_running_loop()
        task.add_done_callback(lambda _task: loop.call_soon(self._continue_queued))

    def _continue_queued(self) -> None:
        if self.is_streaming:
            return
        if (len(self.steering) or len(self.follow_ups)) and self.model is not None:
            self.start_run([])
        else:
            # The aborted run left settling to this continuation, which has nothing to run.
            self.emit(AgentSettled())

    def abort_retry(self) -> None:
        if self._current_run is not None:
            self._current_run.cancel_retry()

    def clear_queue(self) -> QueueSnapshot:
        """Remove every queued message; the snapshot holds the texts removed."""
        from atomic.core.records import QueueSnapshot

        steering = tuple(i.text for i in self.steering.clear())
        follow = tuple(i.text for i in self.follow_ups.clear())
        if steering or follow:
            self.queue_journal.save()
            self.queue_changed()
        return QueueSnapshot(steering, follow)

    # ------------------------------------------------------------------ state

    async def shutdown(self) -> None:
        await self.abort(continue_queue=False)
        await self.bash.shutdown()
        if self.mcp is not None:
            await self.mcp.shutdown()
        if self.hooks.has("session_shutdown"):
            await self.hooks.emit("session_shutdown", {"reason": "quit"})

