"""`Engine`: the one object a frontend (TUI, RPC, ACP) drives the engine through.

A small facade over `AgentSession`: typed arguments, frozen snake_case records back (records.py),
typed events to `subscribe`. Frontends never reach the session store, the model registry, the
queues or the settings manager; when they need something new, it becomes a method here.

Records other than the start-up ones (state.py) are imported in the methods that build them:
defining them all took about 5% of the time from start to the first answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from atomic.core.contract.state import (
    ModelFallback,
    SessionRecovery,
    SessionState,
    SkippedResources,
    TrustStatus,
)
from atomic.core.engine.options import SessionOptions
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.core.extensions.ui import UiAnswer
from atomic.core.messages import BashExecutionMessage, ImageContent
from atomic.core.model_types import Model
from atomic.core.permissions import Approver, ListedRule, PermissionMode, RuleList
from atomic.core.permissions.rule_files import RuleScope
from atomic.core.sandbox.control import SandboxStatus
from atomic.core.sandbox.policy import parse_sandbox_mode
from atomic.core.session.recovery import Recovery
from atomic.core.settings import Settings
from atomic.core.tools.base import EditorFiles, EditorTerminal
from atomic.core.trust import ProjectTrust

# The session module is the whole engine (agent loop, tools, providers): `open_engine` loads it,
# importing the contract does not.
if TYPE_CHECKING:
    from atomic.core.checkpoints.records import CheckpointDiff, CheckpointInfo, RestoreResult, RewindPoint
    from atomic.core.engine.session import AgentSession, Listener
    from atomic.core.oauth.base import LoginPrompts
    from atomic.core.project_offer import ProjectOffer
    from atomic.core.records import (
        CommandInfo,
        CompactionOutcome,
        ContextUsage,
        ForkMessage,
        ForkResult,
        LogoutResult,
        McpServerStatus,
        ModelCycle,
        ProviderAuth,
        QueueSnapshot,
        SessionStats,
        SessionSummary,
        SessionTree,
        StoredMessage,
        StoredTree,
        ThinkingLevelChange,
    )

StreamingBehavior = Literal["steer", "followUp"]
# How a user answers the project trust question: save yes/no, yes for this run, or forget the saved answer.
TrustChoice = Literal["trust", "deny", "once", "forget"]
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
        self._mcp_sink: Callable[[str], None] | None = None
        # The engine's default approver (the extension UI's confirm dialog), restored by set_approver(None).
        self._ui_approver = session.permissions.approver

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
    def session_dir(self) -> Path | None:
        """Where this folder's sessions are stored; None with --no-session."""
        return self._s.session_dir

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
        return self._s.last_assistant_text()

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
        self._s.set_steering_mode(mode)

    def set_follow_up_mode(self, mode: str) -> None:
        self._s.set_follow_up_mode(mode)

    # ------------------------------------------------------------------ state

    def state(self) -> SessionState:
        """A snapshot of the session's state (RPC `get_state`)."""
        s = self._s
        block = s.model_block
        return SessionState(
            model=s.model,
            thinking_level=s.thinking_level,
            is_streaming=s.is_streaming,
            is_compacting=s.is_compacting,
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
        from atomic.core.contract import convert
        from atomic.core.records import SessionStats

        data = self._s.session_stats()
        file = data.get("sessionFile")
        return SessionStats(
            session_id=data["sessionId"],
            session_file=Path(file) if file else None,
            user_messages=data["userMessages"],
            assistant_messages=data["assistantMessages"],
            tool_calls=data["toolCalls"],
            tool_results=data["toolResults"],
            total_messages=data["totalMessages"],
            tokens=convert.token_totals(data["tokens"]),
            cost=data["cost"],
            context_usage=convert.context_usage(data.get("contextUsage")),
        )

    def context_usage(self) -> ContextUsage | None:
        """How full the context window is; None without a model (or a model without a window)."""
        from atomic.core.contract import convert

        return convert.context_usage(self._s.context_usage())

    def context_file_paths(self) -> list[Path]:
        """The instruction files (AGENTS.md ...) in the system prompt, global first."""
        return [f.path for f in self._s.context_files]

    def commands(self) -> list[CommandInfo]:
        """Every command a user can type besides the frontend's own: extension commands first, then
        prompt templates and skills."""
        from atomic.core.contract import convert

        items: list[dict[str, Any]] = []
        if self._s.extensions is not None:
            items.extend(self._s.extensions.command_items())
        if self._s.resources is not None:
            items.extend(self._s.resources.commands())
        if self._s.mcp is not None:
            items.extend(self._s.mcp.commands())
        return [convert.command_info(item) for item in items]

    def complete_command_argument(self, name: str, prefix: str) -> list[str]:
        """Argument completions an extension command offers for `prefix` (empty when none)."""
        if self._s.extensions is None:
            return []
        return list(self._s.extensions.complete_command(name, prefix))

    # ------------------------------------------------------------------ models and thinking

    @property
    def model(self) -> Model | None:
        return self._s.model

    @property
    def thinking_level(self) -> str:
        return self._s.thinking_level

    def all_models(self) -> list[Model]:
        """Every known model, with or without a key."""
        return self._s.all_models()

    def available_models(self) -> list[Model]:
        """The models that have a key."""
        return self._s.available_models()

    def has_auth(self, model: Model) -> bool:
        """True when a key for `model` is configured (or it needs none)."""
        return self._s.has_auth(model)

    def set_model(self, provider: str, model_id: str, persist: bool = False) -> Model:
        """Switch model (`persist` saves it as the default).

        Raises:
            ValueError: unknown model, or no key for it.
        """
        return self._s.set_model(provider, model_id, persist=persist)

    def cycle_model(self, persist: bool = False, backwards: bool = False) -> ModelCycle | None:
        """Switch to the next model of the scope (or of the models with a key).

        Returns:
            The new model and level; None when there is nothing else to switch to.
        """
        return self._s.cycle_model(persist=persist, backwards=backwards)

    def supported_levels(self) -> list[str]:
        """The thinking levels the current model accepts ("off" first)."""
        return self._s.supported_levels()

    def set_thinking_level(self, level: str, persist: bool = False) -> ThinkingLevelChange:
        """Set the thinking level, clamped to the model's (`persist` saves it for this model).

        Raises:
            ValueError: `level` is not a thinking level at all.
        """
        return self._s.set_thinking_level(level, persist=persist)

    def cycle_thinking_level(self) -> str | None:
        """Step to the model's next level. Returns the new level; None without a reasoning model."""
        return self._s.cycle_thinking_level()

    def warm_up_provider(self) -> None:
        """Start loading the current model's provider modules and HTTP stack in a background thread."""
        self._s.warm_up_provider()

    def no_model_guide(self) -> str:
        """What to tell a user who has no usable model (how to add a key)."""
        from atomic.core.models import no_model_message

        return no_model_message(self._s.registry)

    # ------------------------------------------------------------------ auth

    def providers(self) -> list[ProviderAuth]:
        """Every provider with where its key comes from (the login screen), in catalog order."""
        from atomic.core.contract import convert
        from atomic.core.records import ProviderAuth

        registry = self._s.registry
        return [
            ProviderAuth(
                provider=name,
                status=convert.auth_status(registry.auth_status(name)),
                env_var=registry.env_var_for(name),
                default_model_id=registry.default_model_id(name),
                auth=registry.auth_kind(name),
            )
            for name in registry.providers()
        ]

    def provider_auth(self, provider: str) -> ProviderAuth:
        from atomic.core.contract import convert
        from atomic.core.records import ProviderAuth

        registry = self._s.registry
        return ProviderAuth(
            provider=provider,
            status=convert.auth_status(registry.auth_status(provider)),
            env_var=registry.env_var_for(provider),
            default_model_id=registry.default_model_id(provider),
            auth=registry.auth_kind(provider),
        )

    def login_provider(self, provider: str, api_key: str) -> None:
        """Store `api_key` for `provider` in auth.json; its models become available."""
        self._s.login_provider(provider, api_key)

    async def login_with_subscription(self, provider: str, prompts: LoginPrompts) -> None:
        """Run the subscription login of `provider` (GitHub Copilot, ChatGPT), talking to the person
        through `prompts`, and store its tokens; its models become available. Raises LoginError
        (LoginCancelled when the person stopped); cancelling the call stops the login."""
        await self._s.models.login_with_subscription(provider, prompts)

    def logout_provider(self, provider: str) -> LogoutResult:
        """Remove the stored key of `provider`.

        Returns:
            What still provides a key, and the models usable now.
        """
        from atomic.core.contract import convert
        from atomic.core.records import LogoutResult

        data = self._s.logout_provider(provider)
        scoped = None
        if self._s.scoped:
            scoped = tuple(m for m, _ in self._s.scoped if self._s.has_auth(m))
        return LogoutResult(
            provider=provider,
            status=convert.auth_status(data["authStatus"]),
            models=tuple(self._s.available_models()),
            scoped_models=scoped,
        )

    # ------------------------------------------------------------------ session files

    async def new_session(self, parent_session: str | None = None) -> bool:
        """Start a fresh session file. Returns False when an extension cancelled it."""
        return await self._s.new_session(parent_session)

    async def switch_session(self, path: str) -> bool:
        """Continue the session stored at `path`. Returns False when an extension cancelled it."""
        return await self._s.switch_session(path)

    async def import_session(self, path: str) -> bool:
        """Copy a session file into this folder's sessions and continue there (False: cancelled)."""
        return await self._s.import_session(path)

    async def fork(self, entry_id: str) -> ForkResult:
        """A new session holding the branch up to just before the user message `entry_id`.

        Raises:
            ValueError: no such entry, or it is not a user message.
        """
        from atomic.core.records import ForkResult

        text, cancelled = await self._s.fork(entry_id)
        return ForkResult(text=text, cancelled=cancelled)

    async def clone(self) -> bool:
        """A new session holding the current branch. Returns False when an extension cancelled it."""
        return await self._s.clone()

    def fork_messages(self) -> list[ForkMessage]:
        """The user messages of the current branch, oldest first (where a fork can start)."""
        from atomic.core.records import ForkMessage

        return [ForkMessage(entry_id=m["entryId"], text=m["text"]) for m in self._s.get_fork_messages()]

    def tree(self) -> SessionTree:
        """Every entry of the session file as a tree of branches."""
        from atomic.core.records import SessionTree, TreeNode

        store = self._s.store
        kids = store.children()
        labels = store.labels()
        by_id = store.by_id
        built: dict[str, TreeNode] = {}
        # Children before parents, without recursion (a 10,000-entry chain is one deep branch).
        order: list[str] = []
        stack = list(kids.get(None, []))
        while stack:
            entry_id = stack.pop()
            order.append(entry_id)
            stack.extend(kids.get(entry_id, []))
        for entry_id in reversed(order):
            label = labels.get(entry_id)
            built[entry_id] = TreeNode(
                entry=by_id[entry_id].data,
                children=tuple(built[c] for c in kids.get(entry_id, [])),
                label=label[0] if label else None,
                label_timestamp=label[1] if label else None,
            )
        return SessionTree(roots=tuple(built[r] for r in kids.get(None, [])), leaf_id=store.leaf_id)

    def stored_tree(self) -> StoredTree:
        """The tree as an index over the stored JSON lines (nothing parsed or encoded again)."""
        from atomic.core.records import StoredTree

        store = self._s.store
        return StoredTree(
            children=store.children(),
            lines={entry_id: record.raw for entry_id, record in store.by_id.items()},
            labels=store.labels(),
            leaf_id=store.leaf_id,
        )

    def stored_entries(self, since: str | None = None) -> tuple[list[str], str | None]:
        """The stored JSON lines of the entries after `since` (all when None), and the leaf id.

        Raises:
            KeyError: `since` is not an entry id.
        """
        return self._s.store.raw_since(since), self._s.store.leaf_id

    async def navigate_to(self, entry_id: str | None) -> str | None:
        """Move the current position to `entry_id` (/tree).

        Returns:
            On a user message: its text (the position goes to its parent, so sending it again
            makes a new branch); else None.
        Raises:
            ValueError: no such entry.
        """
        return await self._s.navigate_to(entry_id)

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
        return await self._s.navigate_to(entry_id), restored

    async def fork_with_files(self, entry_id: str) -> tuple[ForkResult, RestoreResult]:
        """Restore the files to before the user message `entry_id`, then `fork` there; the undo
        checkpoint is recorded in the session the user ends up in."""
        from atomic.core.records import ForkResult

        checkpoints = self._s.checkpoints
        restored = await checkpoints.restore(checkpoints.checkpoint_for_prompt(entry_id), record_undo=False)
        try:
            text, cancelled = await self._s.fork(entry_id)
        finally:
            checkpoints.record_undo(restored)
        return ForkResult(text=text, cancelled=cancelled), restored

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry (None or "" removes the label). Raises ValueError for an unknown entry."""
        self._s.set_label(entry_id, label)

    def set_session_name(self, name: str) -> None:
        """Name the session. Raises ValueError for an empty name."""
        self._s.set_session_name(name)

    def export_html(self, output_path: str | None = None) -> str:
        """Write the session as one HTML file (slow for long sessions: call it off the event loop).

        Returns:
            The path written.
        Raises:
            ValueError: an in-memory or empty session.
        """
        return self._s.export_html(output_path)

    def list_sessions(self, all_folders: bool = False) -> list[SessionSummary]:
        """Stored sessions, newest first: this folder's, or every folder's."""
        return list_session_summaries(None if all_folders else self._s.session_dir)

    # ------------------------------------------------------------------ bash

    async def run_bash(
        self,
        command: str,
        *,
        request_id: str | None = None,
        on_chunk: BashChunk | None = None,
        exclude_from_context: bool = False,
    ) -> BashExecutionMessage:
        """Run a shell command for the user (`!cmd`); the result is stored in the session.

        Args:
            request_id: names the request for `abort_bash`.
            on_chunk: receives output as it arrives.
            exclude_from_context: `!!cmd`: shown, never sent to the model.
        """
        return await self._s.run_bash(
            command, request_id=request_id, on_chunk=on_chunk, exclude_from_context=exclude_from_context
        )

    def abort_bash(self, request_id: str | None = None) -> bool:
        """Cancel one bash request (or all). Returns whether anything was cancelled."""
        return self._s.abort_bash(request_id)

    @property
    def is_bash_running(self) -> bool:
        return self._s.is_bash_running

    # ------------------------------------------------------------------ compaction

    async def compact(self) -> CompactionOutcome:
        """Compact the context now.

        Raises:
            CompactionFailed: with a clear message (also reported by the compaction_end event).
        """
        from atomic.core.records import CompactionOutcome

        data = await self._s.compact()
        return CompactionOutcome(
            summary=data.get("compactedText", ""),
            first_kept_entry_id=data.get("firstKeptEntryId"),
            tokens_before=int(data.get("tokensBefore") or 0),
            backup_path=data.get("backupPath"),
            result=data,
        )

    def cancel_compaction(self) -> bool:
        """Cancel a running manual compaction. Returns whether one was running."""
        return self._s.cancel_compaction()

    async def abort_compaction(self) -> None:
        """Cancel a compaction and return once it has stopped."""
        self._s.cancel_compaction()
        await self._s.wait_compaction_idle()

    @property
    def is_compacting(self) -> bool:
        return self._s.is_compacting

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
        self._s.set_auto_compaction(enabled)

    def set_auto_retry(self, enabled: bool) -> None:
        self._s.set_auto_retry(enabled)

    # ------------------------------------------------------------------ permissions

    @property
    def permission_mode(self) -> PermissionMode:
        """Who approves tool calls: "ask", "accept-edits" or "yolo"."""
        return self._s.permissions.mode

    def set_permission_mode(self, mode: str, persist: bool = False) -> None:
        """Raises ValueError for an unknown mode."""
        self._s.set_permission_mode(mode, persist=persist)

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
        self._s.set_editor_files(files)

    def set_editor_terminal(self, terminal: EditorTerminal | None) -> None:
        """Run bash in the client's terminals (ACP's terminal methods) instead of locally."""
        self._s.set_editor_terminal(terminal)

    # ------------------------------------------------------------------ extension UI

    def attach_extension_ui(self, show: Listener) -> Callable[[], None]:
        """Present extension dialogs, statuses and widgets; `show` first gets what is pending now.

        Returns:
            A function that detaches the frontend.
        """
        return self._s.extension_ui.attach(show)

    def on_extension_ui_settled(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """`listener(request_id)` when a dialog is answered, cancelled or timed out elsewhere."""
        return self._s.extension_ui.on_settled(listener)

    def resolve_extension_ui(self, request_id: str, answer: UiAnswer) -> None:
        """Answer a pending extension dialog."""
        self._s.extension_ui.resolve(request_id, answer)

    def pending_extension_ui(self, request_id: str) -> ExtensionUiRequest | None:
        """The pending dialog request `request_id`, None when none is pending under that id."""
        return self._s.extension_ui.pending(request_id)

    # ------------------------------------------------------------------ MCP

    def mcp_resource_mentions(self) -> list[tuple[str, str]]:
        """`@server:uri` mentions of the resources the MCP servers list, with a short description
        each (the TUI completes them; a prompt naming one gets the resource's content attached)."""
        manager = self._s.mcp
        return manager.resource_mentions() if manager is not None else []

    def mcp_servers(self) -> list[McpServerStatus]:
        """The configured MCP servers and their state (empty when none is configured)."""
        from atomic.core.contract import convert

        manager = self._s.mcp
        return [convert.mcp_status(s) for s in manager.states()] if manager is not None else []

    async def reconnect_mcp_server(self, name: str) -> McpServerStatus | None:
        """Restart one server. Returns its new state; None when no server has that name."""
        from atomic.core.contract import convert

        manager = self._s.mcp
        if manager is None or name not in {s.name for s in manager.states()}:
            return None
        return convert.mcp_status(await manager.reconnect(name))

    async def login_mcp_server(
        self, name: str, show_url: Callable[[str], None], paste_url: Callable[[], Awaitable[str | None]] | None = None
    ) -> McpServerStatus | None:
        """Log in to a remote MCP server (OAuth): `show_url` gets the authorization URL to open; the
        code comes back to a local callback, or as a URL `paste_url` returns. Its new state; None
        when no server has that name. Raises ValueError for a server without a login (stdio)."""
        from atomic.core.contract import convert
        from atomic.core.mcp.oauth import LoginFlow

        manager = self._s.mcp
        if manager is None or name not in manager.connections:
            return None
        return convert.mcp_status(await manager.login(name, LoginFlow(show_url, paste_url)))

    async def wait_mcp_started(self) -> bool:
        """Wait until every MCP server has connected or failed. True when some server was configured
        (its prompts may now be commands: a frontend lists `commands()` again)."""
        manager = self._s.mcp
        if manager is None or not manager.connections:
            return False
        await manager.wait_settled()
        return True

    def set_mcp_notice_sink(self, sink: Callable[[str], None]) -> None:
        """Where MCP servers' notices (failed start, tools changed) go; kept across trust changes."""
        self._mcp_sink = sink
        if self._s.mcp is not None:
            self._s.mcp.set_notice_sink(sink)

    # ------------------------------------------------------------------ project trust

    @property
    def project_trust(self) -> ProjectTrust | None:
        """The trust decision for the working folder (None before one is made)."""
        return self._s.project_trust

    def skipped_project_resources(self) -> ProjectOffer:
        """What the folder brings that was not loaded (empty when trusted)."""
        from atomic.core.engine.project_trust import skipped_offer

        return skipped_offer(self._s)

    def project_resources(self) -> ProjectOffer:
        """Everything the folder brings, loaded or not (the /trust screen lists it)."""
        from atomic.core.project_offer import project_offer

        return project_offer(self._s.cwd, self._s.agent_dir)

    def trust_saved_here(self) -> bool:
        """True when trust.json holds a decision for this very folder (so it can be forgotten)."""
        from atomic.core.trust import TrustStore

        saved = TrustStore(self._s.agent_dir).lookup(self._s.cwd)
        return saved is not None and saved[0] == self._s.cwd.resolve()

    def trust_status(self, with_skipped: bool = False) -> TrustStatus | None:
        """The trust decision as a record; `with_skipped` adds what was not loaded."""
        from atomic.core.trust import HOW_TO_TRUST

        trust = self._s.project_trust
        if trust is None:
            return None
        skipped: tuple[SkippedResources, ...] | None = None
        if with_skipped:
            offer = self.skipped_project_resources()
            skipped = tuple(SkippedResources(kind, tuple(items)) for kind, items in offer.items())
        return TrustStatus(
            trusted=trust.trusted,
            source=trust.source,
            cwd=trust.cwd,
            decided_by=trust.decided_by,
            undecided=trust.undecided,
            description=trust.describe(),
            skipped=skipped,
            how_to_trust=HOW_TO_TRUST if with_skipped and not trust.trusted else None,
        )

    async def decide_project_trust(self, choice: TrustChoice) -> ProjectTrust:
        """Apply the user's answer: save it (except "once"), then load or stop using what the
        project brings. Extensions already loaded stay until restart.

        Returns:
            The decision now in effect.
        Raises:
            OSError, ValueError: trust.json could not be written (nothing changed).
        """
        from atomic.core.engine.project_trust import apply_project_trust
        from atomic.core.trust import TrustStore, resolve_trust

        s = self._s
        current = s.project_trust
        folder = s.cwd.resolve()
        store = TrustStore(s.agent_dir)
        if choice in ("trust", "deny"):
            store.save(folder, choice == "trust")
        elif choice == "forget":
            store.forget(folder)
        if choice == "once":
            new = current.trusted_once() if current is not None else ProjectTrust(folder, True, "once")
        elif choice == "forget":
            setting = s.settings_manager.global_raw().get("defaultProjectTrust")
            new = resolve_trust(folder, s.agent_dir, setting=setting if isinstance(setting, str) else None)
        else:
            new = ProjectTrust(folder, choice == "trust", "saved", decided_by=folder)
        await apply_project_trust(s, self._options, new)
        if self._mcp_sink is not None and s.mcp is not None:
            s.mcp.set_notice_sink(self._mcp_sink)
        return new

    def loaded_project_extensions(self) -> list[str]:
        """File names of the loaded extensions the project folder brings (`.atomic/extensions/`): they keep
        running after trust is withdrawn, until Atomic restarts."""
        from atomic.core.extensions.discovery import project_extension_paths

        if self._s.extensions is None:
            return []
        project = {str(path.resolve()) for path in project_extension_paths(self._s.cwd)}
        return [Path(e.path).name for e in self._s.extensions.extensions if e.path in project]

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

    def untrusted_notice(self) -> str | None:
        """The one line a non-interactive frontend prints when the folder was left undecided and
        brings something; None otherwise."""
        from atomic.core.engine.project_trust import untrusted_notice

        return untrusted_notice(self._s)

    # ------------------------------------------------------------------ closing

    async def shutdown(self) -> None:
        """Abort, stop bash commands and MCP servers, run `session_shutdown` hooks."""
        await self._s.shutdown()


def list_session_summaries(folder: Path | None) -> list[SessionSummary]:
    """Stored sessions, newest first: those in `folder`, or every folder's when None."""
    from atomic.core.contract import convert
    from atomic.core.session.listing import list_all_sessions, list_sessions

    infos = list_all_sessions() if folder is None else list_sessions(folder)
    return [convert.session_summary(info) for info in infos]


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
