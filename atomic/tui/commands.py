"""Built-in slash commands: each declared once, by `@slash` on the method that runs it; the declarations
(`COMMANDS`) feed completion, the command palette and its help, and dispatch. `/compact` and `/name`, which
every frontend offers, are declared on the engine side (atomic.core.frontend_commands) and passed in.

A command that opens a screen pushes it with a callback: the screen dismisses with a typed result (or
None) and the callback here applies it through the engine, then refreshes the chrome.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen

from atomic.core.frontend_commands import COMPACT, NAME, FrontendCommand  # plain records: cheap at start-up
from atomic.tui.host import AppHost
from atomic.tui.session_commands import diff_command, retry_command

if TYPE_CHECKING:
    from atomic.tui.rewind_flow import RewindFlow
    from atomic.tui.screens.login_screen import LoginChoice
    from atomic.tui.screens.model_picker import ModelChoice
    from atomic.tui.screens.session_picker import SessionChoice
    from atomic.tui.screens.subscription_login import SubscriptionOutcome
    from atomic.tui.screens.tree_screen import TreeChoice

R = TypeVar("R")
Handler = Callable[["SlashCommands", str], Awaitable[None]]


@dataclass(frozen=True)
class SlashCommand:
    """One built-in command: what completion, the palette and its help show, and the method that runs it."""

    name: str
    description: str
    run: Handler


# Filled by `@slash` while the class below is defined: the order of its methods is the order completion and
# the palette show the commands in.
_DECLARED: list[SlashCommand] = []


def slash(name: str | FrontendCommand, description: str = "") -> Callable[[Handler], Handler]:
    """Declare the method below as the built-in `/name`; a command every frontend offers is passed as its
    engine-side declaration (atomic.core.frontend_commands), which brings its description."""
    named = name if isinstance(name, FrontendCommand) else FrontendCommand(name, description)

    def declare(handler: Handler) -> Handler:
        _DECLARED.append(SlashCommand(named.name, named.description, handler))
        return handler

    return declare


class SlashCommands:
    """Runs `/name args` typed in the editor. Unknown names go to the engine (templates, skills, extensions)."""

    def __init__(self, app: AppHost) -> None:
        self.app = app

    def handles(self, text: str) -> bool:
        name = text[1:].split(maxsplit=1)[0] if text.startswith("/") and len(text) > 1 else ""
        return name in BY_NAME

    async def run(self, text: str) -> bool:
        parts = text[1:].split(maxsplit=1)
        if not parts or parts[0] not in BY_NAME:
            return False
        await BY_NAME[parts[0]].run(self, parts[1].strip() if len(parts) > 1 else "")
        return True

    def _push(
        self, name: str, make: Callable[[], Screen[R | None]], apply: Callable[[R], Awaitable[None]] | None = None
    ) -> None:
        """Open a screen; when it dismisses with a result, apply it, then refresh what shows engine state."""
        app = self.app
        if app.engine is None:
            app.notify(f"/{name} is not available yet", severity="warning")
            return
        try:
            screen = make()
        except Exception as exc:  # a screen bug must not take the app down
            app.show_error(f"/{name} failed to open: {exc}")
            return

        async def done(result: R | None) -> None:
            if result is not None and apply is not None:
                try:
                    await apply(result)
                except Exception as exc:  # an engine refusal is shown, never crashes the app
                    app.notify(str(exc) or type(exc).__name__, title="Error", severity="error")
            app.after_state_change()

        app.push_screen(screen, done)

    @slash("model", "Select a model (ctrl+l)")
    async def _model(self, args: str) -> None:
        if args and self._switch_model_directly(args):
            return
        self.open_model_picker(args)

    def open_model_picker(self, query: str = "") -> None:
        from atomic.tui.screens.model_picker import ModelPickerScreen

        self._push("model", lambda: ModelPickerScreen(self.app.engine, initial_query=query), self._model_chosen)

    async def _model_chosen(self, choice: ModelChoice) -> None:
        # An interactive choice becomes the default for the next start, as in pi.
        chosen = self.app.engine.models.set_model(choice.provider, choice.model_id, persist=True)
        self.app.notify(f"Model: {chosen.provider}/{chosen.id}")

    def _switch_model_directly(self, term: str) -> bool:
        """`/model <term>`: switch when exactly one available model is `id` or `provider/id`."""
        engine = self.app.engine
        wanted = term.strip().lower()
        matches = [
            m for m in engine.models.available_models() if wanted in (m.id.lower(), f"{m.provider}/{m.id}".lower())
        ]
        if len(matches) != 1:
            return False
        model = matches[0]
        try:
            engine.models.set_model(model.provider, model.id)
        except ValueError as exc:
            self.app.notify(str(exc), severity="error")
            return True
        self.app.notify(f"Switched to {model.name or model.id}")
        return True

    @slash("thinking", "Select the thinking level (f3 cycles)")
    async def _thinking(self, _args: str) -> None:
        from atomic.tui.screens.thinking_picker import ThinkingPickerScreen

        self._push("thinking", lambda: ThinkingPickerScreen(self.app.engine), self._thinking_chosen)

    async def _thinking_chosen(self, level: str) -> None:
        result = self.app.engine.models.set_thinking_level(level, persist=True)
        self.app.notify(f"Thinking level: {result.level}")

    @slash("settings", "Open settings")
    async def _settings(self, _args: str) -> None:
        from atomic.tui.screens.settings_screen import SettingsScreen

        # Each change is saved and applied while the screen is open; the result only sums them up.
        self._push("settings", lambda: SettingsScreen(self.app.engine), self._notify_text)

    async def _notify_text(self, text: str) -> None:
        if text:
            self.app.notify(text)

    @slash("hotkeys", "Show keyboard shortcuts")
    async def _hotkeys(self, _args: str) -> None:
        from atomic.tui.screens.hotkeys_screen import HotkeysScreen

        self.app.push_screen(HotkeysScreen(self.app.keys.describe()))

    @slash("new", "Start a new session")
    async def _new(self, _args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        if await engine.sessions.new_session():
            self.app.notify("New session started")
        else:
            self.app.notify("New session cancelled by an extension", severity="warning")

    @slash("resume", "Resume another session")
    async def _resume(self, _args: str) -> None:
        self.open_session_picker()

    def open_session_picker(self) -> None:
        from atomic.tui.screens.session_picker import SessionPickerScreen

        self._push("resume", lambda: SessionPickerScreen(self.app.engine), self._session_chosen)

    async def _session_chosen(self, choice: SessionChoice) -> None:
        if await self.app.engine.sessions.switch_session(choice.path):
            self.app.notify(f"Resumed: {choice.title}")
            recovery = self.app.engine.state().session_recovery
            if recovery is not None:
                self.app.renderer.note(recovery.message, "warning")
        else:
            self.app.notify("Session switch cancelled by an extension")

    @slash(NAME)
    async def _name(self, args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        if not args:
            current = engine.session_name
            if current:
                self.app.notify(f"Session name: {current}")
            else:
                self.app.notify("Usage: /name <name>", severity="warning")
            return
        engine.sessions.set_session_name(args)
        self.app.notify(f"Session name set: {args}")

    @slash("session", "Session file, id, messages, tokens and cost")
    async def _session(self, _args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        from atomic.tui.reports import session_info_text

        self.app.renderer.note(session_info_text(engine.session_stats(), engine.session_name))

    @slash("fork", "New session from an earlier user message")
    async def _fork(self, _args: str) -> None:
        from atomic.tui.screens.fork_picker import ForkPickerScreen

        self._push("fork", lambda: ForkPickerScreen(self.app.engine), self._fork_chosen)

    async def _fork_chosen(self, entry_id: str) -> None:
        async def move() -> None:
            result = await self.app.engine.sessions.fork(entry_id)
            if result.cancelled:
                self.app.notify("Fork cancelled by an extension")
            else:
                self.app.restore_to_editor([result.text])

        await self._rewind_flow().offer_files(entry_id, move)

    @slash("clone", "Copy this session into a new one")
    async def _clone(self, _args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        try:
            cloned = await engine.sessions.clone()
        except ValueError as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self.app.notify("Session cloned" if cloned else "Clone cancelled by an extension")

    @slash("tree", "Navigate the session tree")
    async def _tree(self, _args: str) -> None:
        from atomic.tui.screens.tree_screen import TreeScreen

        self._push("tree", lambda: TreeScreen(self.app.engine), self._tree_chosen)

    async def _tree_chosen(self, choice: TreeChoice) -> None:
        async def move() -> None:
            text = await self.app.engine.sessions.navigate_to(choice.entry_id)
            if text is not None:
                self.app.restore_to_editor([text])  # a user message: its text comes back to be edited and resent
            else:
                self.app.notify("Moved to the selected entry")

        # Moving to a prompt offers to put the files back as they were before it (rewind_flow.py).
        await self._rewind_flow().offer_files(choice.entry_id, move)

    @slash("rewind", "Back to before a prompt: code, conversation or both (esc esc)")
    async def _rewind(self, args: str) -> None:
        if self.app.engine is None:
            self.app.notify("/rewind is not available yet", severity="warning")
            return
        await self._rewind_flow().open(args)

    def _rewind_flow(self) -> RewindFlow:
        from atomic.tui.rewind_flow import RewindFlow

        return RewindFlow(self.app)

    @slash("undo", "Undo the last prompt: its file changes, and it goes back to the editor")
    async def _undo(self, _args: str) -> None:
        if self.app.engine is None:
            self.app.notify("/undo is not available yet", severity="warning")
            return
        await self._rewind_flow().undo()

    @slash(COMPACT)
    async def _compact(self, _args: str) -> None:
        engine = self.app.engine
        assert engine is not None

        async def compact() -> None:
            from atomic.core.contract import CompactionFailed

            try:
                await engine.compact()
            except CompactionFailed:
                pass  # the compaction_end event has reported it in the conversation
            except Exception as exc:
                self.app.show_error(f"Compaction failed: {exc}")

        self.app.run_worker(compact(), group="compact")

    @slash("export", "Export to HTML: /export [path]")
    async def _export(self, args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        from atomic.tui.reports import export_text

        note = self.app.renderer.note("⟳ Exporting the session to HTML…")
        try:
            # Off the UI loop: a long session takes a while to render.
            path = await asyncio.to_thread(engine.export_html, args or None)
        except (ValueError, OSError) as exc:
            self.app.renderer.replace_note(note, f"Export failed: {exc}", "error")
            return
        self.app.renderer.replace_note(note, export_text(path))

    @slash("copy", "Copy the last reply to the clipboard")
    async def _copy(self, _args: str) -> None:
        engine = self.app.engine
        assert engine is not None
        text = engine.last_assistant_text()
        if not text:
            self.app.notify("No agent messages to copy yet.", severity="warning")
            return
        from atomic.tui.clipboard import copy_text

        copy_text(self.app, text)
        self.app.notify("Copied the last reply to the clipboard")

    @slash("retry", "Send the last prompt again")
    async def _retry(self, args: str) -> None:
        await retry_command(self.app, args)

    @slash("diff", "What this session changed in the files")
    async def _diff(self, args: str) -> None:
        await diff_command(self.app, args)

    @slash("login", "Store an API key for a provider")
    async def _login(self, _args: str) -> None:
        from atomic.tui.screens.login_screen import LoginScreen

        self._push("login", lambda: LoginScreen(self.app.engine, mode="login"), self._login_chosen)

    @slash("logout", "Remove a stored API key")
    async def _logout(self, _args: str) -> None:
        from atomic.tui.screens.login_screen import LoginScreen

        self._push("logout", lambda: LoginScreen(self.app.engine, mode="logout"), self._login_chosen)

    async def _login_chosen(self, choice: LoginChoice) -> None:
        from atomic.tui.screens.login_screen import logout_text, select_provider_model

        app, engine, provider = self.app, self.app.engine, choice.provider
        if choice.subscription:
            self._subscription_login(provider)
            return
        if choice.api_key is None:
            engine.models.logout_provider(provider)
            text = logout_text(engine, provider)
        else:
            try:
                engine.models.login_provider(provider, choice.api_key)
                model = select_provider_model(engine, provider)
            except Exception as exc:
                app.notify(str(exc), title="Login failed", severity="error")
                return
            if model is None:
                text = f"Logged in to {provider}, but it has no models to use: add some in models.json."
            else:
                text = (
                    f"Logged in to {provider}. Using {model.name or model.id} ({provider}/{model.id}); "
                    "ctrl+l picks another."
                )
        # A line in the conversation rather than a toast: it says what happens to the next message.
        app.renderer.setup_note(text, ready=engine.models.model is not None)

    def _subscription_login(self, provider: str) -> None:
        from atomic.core.contract import subscription_logins
        from atomic.tui.screens.subscription_login import SubscriptionLoginScreen

        title = next((s.title for s in subscription_logins() if s.provider == provider), provider)
        self._push("login", lambda: SubscriptionLoginScreen(self.app.engine, provider, title),
                   self._subscription_done)

    async def _subscription_done(self, outcome: SubscriptionOutcome) -> None:
        from atomic.tui.screens.login_screen import select_provider_model

        app, engine = self.app, self.app.engine
        if not outcome.ok:
            app.notify(outcome.message, title="Login", severity="warning")
            return
        model = select_provider_model(engine, outcome.provider)
        if model is None:
            text = f"Logged in to {outcome.provider}, but it offers no models to use."
        else:
            text = (f"Logged in to {outcome.provider}. Using {model.name or model.id} "
                    f"({outcome.provider}/{model.id}); ctrl+l picks another.")
        app.renderer.setup_note(text, ready=engine.models.model is not None)

    @slash("mcp", "MCP servers: status, tools, errors, reconnect")
    async def _mcp(self, _args: str) -> None:
        from atomic.tui.screens.mcp_screen import McpScreen

        self._push("mcp", lambda: McpScreen(self.app.engine))

    @slash("trust", "View or change whether this project folder is trusted")
    async def _trust(self, _args: str) -> None:
        from atomic.tui.trust_flow import open_trust_screen

        open_trust_screen(self.app)

    @slash(
        "permissions",
        "Approvals: /permissions [ask|accept-edits|yolo|plan], or allow|ask|deny|remove RULE (f2 cycles)",
    )
    async def _permissions(self, args: str) -> None:
        from atomic.tui.permissions_command import run_permissions

        message, failed = run_permissions(self.app.engine, args)
        self.app.notify(message, severity="error" if failed else "information")

    @slash("quit", "Quit Atomic")
    async def _quit(self, _args: str) -> None:
        await self.app.action_quit()


COMMANDS: tuple[SlashCommand, ...] = tuple(_DECLARED)
BY_NAME: dict[str, SlashCommand] = {command.name: command for command in COMMANDS}


class SlashCommandProvider(Provider):
    """Built-in commands in Textual's command palette (F1)."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in COMMANDS:
            score = matcher.match(f"/{command.name} {command.description}")
            if score > 0:
                hit = matcher.highlight(f"/{command.name}")
                yield Hit(score, hit, self._runner(command.name), help=command.description)

    async def discover(self) -> Hits:
        for command in COMMANDS:
            yield DiscoveryHit(f"/{command.name}", self._runner(command.name), help=command.description)

    def _runner(self, name: str) -> Callable[[], object]:
        app = self.app
        assert isinstance(app, AppHost)  # the palette is only offered by AtomicApp
        return lambda: app.run_worker(app.slash.run(f"/{name}"))
