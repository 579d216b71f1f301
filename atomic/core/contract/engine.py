"""`Engine`: the one object a frontend (TUI, RPC, ACP) drives the engine through.

A flat core (prompting, the queue, state, stats, bash, compaction, settings, permissions,
checkpoints, closing) that calls the session's components directly, and five small typed views
over one component each: `models`, `sessions`, `trust`, `mcp`, `extension_ui`. Typed arguments,
frozen snake_case records back (records.py), typed events to `subscribe`. Frontends never reach
the session store, the model registry, the queues or the settings manager; when they need
something new, it becomes a method here or on a view.

Records other than the start-up ones (state.py) are imported in the methods that return them:
defining them all took about 5% of the time from start to the first answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from atomic.core.contract.extension_ui_view import ExtensionUiView
from atomic.core.contract.mcp_view import McpView
from atomic.core.contract.models_view import ModelsView
from atomic.core.contract.sessions_view import SessionsView
from atomic.core.contract.state import ModelFallback, SessionRecovery, SessionState
from atomic.core.contract.trust_view import TrustView
from atomic.core.engine import session_stats as stats
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.project_trust import TrustChoice
from atomic.core.messages import BashExecutionMessage, ImageContent
from atomic.core.permissions import Approver, ListedRule, PermissionMode, RuleList
from atomic.core.permissions.rule_files import RuleScope
from atomic.core.sandbox.control import SandboxStatus
from atomic.core.sandbox.policy import parse_sandbox_mode
from atomic.core.session.recovery import Recovery
from atomic.core.settings import Settings
from atomic.core.tools.base import EditorFiles, EditorTerminal

# The session module is the whole engine (agent loop, tools, providers): `open_engine` loads it,
# importing the contract does not.
if TYPE_CHECKING:
    from atomic.core.checkpoints.records import CheckpointDiff, CheckpointInfo, RestoreResult, RewindPoint
    from atomic.core.engine.session import AgentSession, Listener
    from atomic.core.records import (
        CommandInfo,
        CompactionOutcome,
        ContextUsage,
        ForkResult,
        QueueSnapshot,
        SessionStats,
        StoredMessage,
    )

__all__ = ["BashChunk", "Engine", "StreamingBehavior", "TrustChoice", "open_engine"]

StreamingBehavior = Literal["steer", "followUp"]
BashChunk = Callable[[str, str], None]  # (channel "stdout"/"stderr", text)


async def open_engine(options: SessionOptions) -> Engine:
    """Open a session as `options` say (settings, session file, model, tools, resources, extensions).

    Raises:
        StartupError: the options make starting impossible (the message says why).
    """
    from atomic.core.engine.factory import create_session

    return Engine(await create_session(options), options)


class Engine:
    """One open session of the engine, as frontends see it."""

    def __init__(self, session: AgentSession, options: SessionOptions) -> None:
        self._s = session
        self._options = options
        # The engine's default approver (the extension UI's confirm dialog), restored by set_approver(None).
        self._ui_approver = session.permissions.approver
        self.models = ModelsView(session.models)
        self.sessions = SessionsView(session.files)
        self.trust = TrustView(session.trust)
        self.mcp = McpView(session)
        self.extension_ui = ExtensionUiView(session.extension_ui)

    # ------------------------------------------------------------------ identity and places

    @property
    def options(self) -> SessionOptions:
        """The options the engine was opened with (a frontend reuses them, e.g. ACP's new sessions)."""
        return self._options

    @property
    def cwd(self) -> Path:
        return self._s.cwd

    @property
    def agent_dir(self) -> Path:
        """The user's Atomic folder (settings.json, auth.json, sessions)."""
        return self._s.agent_dir

    @property
    def session_id(self) -> str:
        return self._s.store.session_id

    @property
    def session_file(self) -> Path | None:
        """The current session file; None for an in-memory session."""
        return self._s.store.path

    @property
    def session_name(self) -> str | None:
        return self._s.store.name()

    def session_header(self) -> dict[str, Any]:
        """The session file's header entry, in the file's own JSON format (docs/sessions.md)."""
        return dict(self._s.store.header)

    @property
    def startup_warnings(self) -> list[str]:
        """Problems found while opening (bad settings, unknown models ...), for the frontend to show."""
        return self._s.startup_warnings

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every engine event (atomic.core.events), synchronously and in order.

        Returns:
            A function that removes the listener.
        """
        return self._s.subscribe(listener)

    # ------------------------------------------------------------------ prompting

    async def prompt(
        self,
        text: str,
        images: list[ImageContent] | None = None,
        streaming_behavior: StreamingBehavior | None = None,
        source: str = "rpc",
    ) -> None:
        """Start a run with `text`, queue it while one runs, or run an extension command.

        Args:
            streaming_behavior: while a run is active, "steer" or "followUp" queues the text.
            source: who typed it ("rpc", "interactive", "acp"), passed to `input` hooks.
        Raises:
            PromptRejected: refused before it was accepted (no model, no key, busy without a behaviour).
        """
        await self._s.prompt(text, images, streaming_behavior, source=source)

    async def steer(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a message delivered after the current tool calls (starts a run when idle)."""
        await self._s.steer(text, images)

    async def follow_up(self, text: str, images: list[ImageContent] | None = None) -> None:
        """Queue a message delivered when the agent would stop (starts a run when idle)."""
        await self._s.follow_up(text, images)

    async def abort(self, continue_queue: bool = True) -> None:
        """Cancel the run, its tools, a retry wait and compaction; returns once idle.

        Args:
            continue_queue: messages still queued run next; False when the caller is about to
                replace or close the session (they stay queued).
        """
        await self._s.abort(continue_queue=continue_queue)

    def abort_retry(self) -> None:
        """Stop waiting for an automatic retry (the run ends with the error)."""
        self._s.abort_retry()

    async def wait_idle(self) -> None:
        """Return when no run is active."""
        await self._s.wait_idle()

    @property
    def is_streaming(self) -> bool:
        """True while a run is active."""
        return self._s.is_streaming

    def messages(self) -> list[Any]:
        """The context the model sees, as typed messages (atomic.core.messages.AgentMessage)."""
        return self._s.context_messages()

    def message_count(self) -> int:
        """How many messages the context holds (cheaper than `len(messages())`: nothing is parsed)."""
        return len(self._s.context_items)

    def stored_messages(self) -> list[StoredMessage]:
        """The context's messages as stored: each one's JSON text from the session file, or its dict
        when it has no stored text yet (nothing is parsed or validated)."""
        return [item.stored() for item in self._s.context_items]

    def last_assistant_text(self) -> str | None:
        """The text of the last assistant answer that did not fail, None when there is none."""
        return stats.last_assistant_text(self._s.context_messages())

    # ------------------------------------------------------------------ queue

    def queue(self) -> QueueSnapshot:
        """What waits now: steering and follow-up texts, in delivery order."""
        from atomic.core.records import QueueSnapshot

        return QueueSnapshot(tuple(self._s.steering.texts()), tuple(self._s.follow_ups.texts()))

    def clear_queue(self) -> QueueSnapshot:
        """Remove every queued message.

        Returns:
            The texts removed (the TUI puts them back into the editor).
        """
        return self._s.clear_queue()

    @property
    def steering_mode(self) -> str:
        """"all" or "one-at-a-time": how queued steering messages are delivered."""
        return self._s.steering.mode

    @property
    def follow_up_mode(self) -> str:
        return self._s.follow_ups.mode

    def set_steering_mode(self, mode: str) -> None:
        self._s.steering.mode = mode

    def set_follow_up_mode(self, mode: str) -> None:
        self._s.follow_ups.mode = mode

    # ------------------------------------------------------------------ state

    def state(self) -> SessionState:
        """A snapshot of the session's state (RPC `get_state`)."""
        s = self._s
        block = s.models.model_block
        return SessionState(
            model=s.model,
            thinking_level=s.models.thinking_level,
            is_streaming=s.is_streaming,
            is_compacting=s.compaction.is_compacting,
            steering_mode=s.steering.mode,
            follow_up_mode=s.follow_ups.mode,
            session_id=s.store.session_id,
            session_file=s.store.path,
            session_name=s.store.name(),
            auto_compaction_enabled=s.auto_compaction_enabled,
            auto_retry_enabled=s.auto_retry_enabled,
            message_count=len(s.context_items),
            pending_message_count=len(s.steering) + len(s.follow_ups),
            permission_mode=s.permissions.mode,
            model_fallback=ModelFallback(reason=block[0], message=block[1]) if block is not None else None,
            todos=s.todos.current(s.context_items),
            session_recovery=_recovery_record(s.store.recovery),
            sandbox=s.sandbox.status(),
        )

    def session_stats(self) -> SessionStats:
        """Message, tool call, token and cost counts over the current branch."""
        return stats.session_stats(self._s.store, self._s.context_messages(), self._s.context_usage())

    def context_usage(self) -> ContextUsage | None:
        """How full the context window is; None without a model (or a model without a window)."""
        return self._s.context_usage()

    def export_html(self, output_path: str | None = None) -> str:
        """Write the session as one HTML file (slow for long sessions: call it off the event loop).
        Returns the path written. Raises ValueError: an in-memory or empty session."""
        s = self._s
        return stats.export_html(s.store, s.cwd, s.toolset.system_prompt, s.toolset.active_tools(), output_path)

    def context_file_paths(self) -> list[Path]:
        """The instruction files (AGENTS.md ...) in the system prompt, global first."""
        return [f.path for f in self._s.toolset.context_files]

    def commands(self) -> list[CommandInfo]:
        """Every command a user can type besides the frontend's own: extension commands first, then
        prompt templates and skills."""
        s = self._s
        return [
            *(s.extensions.commands() if s.extensions is not None else ()),
            *(s.toolset.resources.commands() if s.toolset.resources is not None else ()),
            *(s.mcp.commands() if s.mcp is not None else ()),
        ]

    def complete_command_argument(self, name: str, prefix: str) -> list[str]:
        """Argument completions an extension command offers for `prefix` (empty when none)."""
        if self._s.extensions is None:
            return []
        return list(self._s.extensions.complete_command(name, prefix))

    # ------------------------------------------------------------------ checkpoints

    async def checkpoints(self) -> list[CheckpointInfo]:
        """Every checkpoint of the session file, on all branches, oldest first.

        Raises:
            CheckpointError: checkpoints are disabled.
        """
        return await self._s.checkpoints.listed()

    async def rewind_points(self) -> list[RewindPoint]:
        """The user messages of the current branch, each with the checkpoint that restores code to
        before it and how many files its run changed."""
        return await self._s.checkpoints.rewind_points()

    async def diff_checkpoint(self, checkpoint_id: str) -> CheckpointDiff:
        """What changed from the checkpoint to the current files. Raises CheckpointError."""
        return await self._s.checkpoints.diff(checkpoint_id)

    async def restore_checkpoint(self, checkpoint_id: str) -> RestoreResult:
        """Put the files back as the checkpoint holds them (after a checkpoint that undoes it).

        Raises:
            CheckpointError: disabled, unknown id, or the agent, a compaction or bash is running.
        """
        return await self._s.checkpoints.restore(checkpoint_id)

    async def restore_files_before(self, entry_id: str) -> RestoreResult:
        """Restore the files to before the user message `entry_id` ran; the conversation stays."""
        checkpoints = self._s.checkpoints
        return await checkpoints.restore(checkpoints.checkpoint_for_prompt(entry_id))

    async def navigate_with_files(self, entry_id: str) -> tuple[str | None, RestoreResult]:
        """Restore the files to before the user message `entry_id`, then move there (`navigate_to`).
        Nothing moves when the restore is refused (CheckpointError)."""
        restored = await self.restore_files_before(entry_id)
        return await self._s.files.navigate_to(entry_id), restored

    async def fork_with_files(self, entry_id: str) -> tuple[ForkResult, RestoreResult]:
        """Restore the files to before the user message `entry_id`, then `fork` there; the undo
        checkpoint is recorded in the session the user ends up in."""
        checkpoints = self._s.checkpoints
        restored = await checkpoints.restore(checkpoints.checkpoint_for_prompt(entry_id), record_undo=False)
        try:
            forked = await self._s.files.fork(entry_id)
        finally:
            checkpoints.record_undo(restored)
        return forked, restored

    # ------------------------------------------------------------------ bash

    async def run_bash(
        self,
        command: str,
        *,
        request_id: str | None = None,
        on_chunk: BashChunk | None = None,
        on_display: Callable[[str], None] | None = None,
        exclude_from_context: bool = False,
    ) -> BashExecutionMessage:
        """Run a shell command for the user (`!cmd`); the result is stored in the session.

        Args:
            request_id: names the request for `abort_bash`.
            on_chunk: receives output as it arrives.
            on_display: receives it with its colours (SGR sequences only), for display; never stored.
            exclude_from_context: `!!cmd`: shown, never sent to the model.
        """
        return await self._s.bash.run(
            command, request_id=request_id, on_chunk=on_chunk, on_display=on_display,
            exclude_from_context=exclude_from_context,
        )

    def abort_bash(self, request_id: str | None = None) -> bool:
        """Cancel one bash request (or all). Returns whether anything was cancelled."""
        return self._s.bash.abort(request_id)

    @property
    def is_bash_running(self) -> bool:
        return self._s.bash.is_running

    # ------------------------------------------------------------------ compaction

    async def compact(self) -> CompactionOutcome:
        """Compact the context now.

        Raises:
            CompactionFailed: with a clear message (also reported by the compaction_end event).
        """
        return await self._s.compact()

    def cancel_compaction(self) -> bool:
        """Cancel a running manual compaction. Returns whether one was running."""
        return self._s.compaction.cancel()

    async def abort_compaction(self) -> None:
        """Cancel a compaction and return once it has stopped."""
        self._s.compaction.cancel()
        await self._s.compaction.wait_idle()

    @property
    def is_compacting(self) -> bool:
        return self._s.compaction.is_compacting

    # ------------------------------------------------------------------ settings

    @property
    def settings(self) -> Settings:
        """The effective settings (read them; change them with `save_settings` or the setters)."""
        return self._s.settings

    def save_settings(self, changes: dict[str, Any]) -> None:
        """Write `changes` (settings.json keys, dotted for sections) to the user's settings file."""
        self._s.settings_manager.update(changes)

    @property
    def auto_compaction_enabled(self) -> bool:
        return self._s.auto_compaction_enabled

    @property
    def auto_retry_enabled(self) -> bool:
        return self._s.auto_retry_enabled

    def set_auto_compaction(self, enabled: bool) -> None:
        self._s.auto_compaction_enabled = enabled

    def set_auto_retry(self, enabled: bool) -> None:
        self._s.auto_retry_enabled = enabled

    # ------------------------------------------------------------------ permissions

    @property
    def permission_mode(self) -> PermissionMode:
        """Who approves tool calls: "ask", "accept-edits" or "yolo"."""
        return self._s.permissions.mode

    def set_permission_mode(self, mode: str, persist: bool = False) -> None:
        """Raises ValueError for an unknown mode."""
        self._s.permission_modes.set_mode(mode, persist=persist)

    def permission_rules(self) -> list[ListedRule]:
        """The allow, ask and deny rules in force (user, trusted project, this session's "always")."""
        from atomic.core.permissions.rules import listed

        return listed(self._s.permissions.all_rules())

    def change_permission_rule(self, kind: RuleList, rule: str, *, add: bool, scope: RuleScope | None = None) -> str:
        """Add or remove a rule in the project's settings (the user's while the project is untrusted,
        or when `scope` says "user"); returns the file changed. Raises ValueError for a bad rule or file."""
        from atomic.core.permissions.rule_files import change_rule, save_scope, scope_path

        manager = self._s.settings_manager
        where: RuleScope = scope or save_scope(manager)
        if where == "project" and not manager.project_trusted:
            raise ValueError("The project is not trusted, so its rules would not be used; use the user's settings")
        change_rule(manager, where, kind, rule, add=add)
        return str(scope_path(manager, where))

    def set_approver(self, approver: Approver | None) -> None:
        """Ask this frontend about tool calls (None: through the extension UI's confirm dialog)."""
        self._s.permissions.approver = approver if approver is not None else self._ui_approver

    def set_editor_files(self, files: EditorFiles | None) -> None:
        """Read and write files through the client (ACP's fs methods) instead of the disk."""
        self._s.editor_files = files

    def set_editor_terminal(self, terminal: EditorTerminal | None) -> None:
        """Run bash in the client's terminals (ACP's terminal methods) instead of locally."""
        self._s.editor_terminal = terminal

    # ------------------------------------------------------------------ sandbox

    def sandbox_status(self) -> SandboxStatus:
        """The sandbox of the model's commands: mode, network, and whether the OS provides it."""
        return self._s.sandbox.status()

    def set_sandbox_mode(self, mode: str) -> None:
        """Use this sandbox mode for the rest of the run (over `--sandbox`); ValueError if unknown."""
        self._s.sandbox.set_mode(parse_sandbox_mode(mode))

    def sandbox_notice(self) -> str | None:
        """Once per session, when the sandbox is on but the OS cannot provide it: the line to show."""
        return self._s.sandbox.unavailable_notice()

    # ------------------------------------------------------------------ closing

    async def shutdown(self) -> None:
        """Abort, stop bash commands and MCP servers, run `session_shutdown` hooks."""
        await self._s.shutdown()


def _recovery_record(recovery: Recovery | None) -> SessionRecovery | None:
    if recovery is None:
        return None
    return SessionRecovery(
        message=recovery.summary(),
        backup_file=recovery.backup,
        skipped_lines=recovery.skipped_lines,
        header_rebuilt=recovery.header_made_up,
        relinked_entries=recovery.relinked,
    )
