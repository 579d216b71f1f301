"""Built-in slash commands, their dispatch, and the command-palette provider that offers them."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from atomic.tui.app import AtomicApp

BUILTIN_COMMANDS: tuple[tuple[str, str], ...] = (
    ("model", "Select a model (ctrl+l)"),
    ("thinking", "Select the thinking level (shift+tab cycles)"),
    ("settings", "Open settings"),
    ("hotkeys", "Show keyboard shortcuts"),
    ("new", "Start a new session"),
    ("resume", "Resume another session"),
    ("name", "Name this session: /name <name>"),
    ("session", "Session file, id, messages, tokens and cost"),
    ("fork", "New session from an earlier user message"),
    ("clone", "Copy this session into a new one"),
    ("tree", "Navigate the session tree"),
    ("compact", "Compact the context now"),
    ("export", "Export to HTML: /export [path]"),
    ("copy", "Copy the last reply to the clipboard"),
    ("login", "Store an API key for a provider"),
    ("logout", "Remove a stored API key"),
    ("mcp", "MCP servers: status, tools, errors, reconnect"),
    ("trust", "View or change whether this project folder is trusted"),
    ("permissions", "Approvals: /permissions [ask|accept-edits|yolo] (f2 cycles)"),
    ("quit", "Quit Atomic"),
)

# name → (class, extra keyword arguments) of the modal screens in atomic.tui.screens (loaded lazily).
SCREENS: dict[str, tuple[str, dict[str, Any]]] = {
    "model": ("ModelPickerScreen", {}),
    "thinking": ("ThinkingPickerScreen", {}),
    "settings": ("SettingsScreen", {}),
    "resume": ("SessionPickerScreen", {}),
    "tree": ("TreeScreen", {}),
    "fork": ("ForkPickerScreen", {}),
    "login": ("LoginScreen", {"mode": "login"}),
    "logout": ("LoginScreen", {"mode": "logout"}),
    "mcp": ("McpScreen", {}),
}
# A screen result starting with this asks for its text to be put into the editor.
EDITOR_PREFIX = "editor:"
# ... and with this, to be shown as a line in the conversation (login and logout say what happens next).
NOTE_PREFIX = "note:"


def load_screen_class(class_name: str) -> type | None:
    try:
        package = importlib.import_module("atomic.tui.screens")
        return getattr(package, class_name)
    except (ImportError, AttributeError):
        return None


def session_info_text(stats: dict[str, Any], name: str | None) -> str:
    tokens = stats.get("tokens") or {}
    lines = ["Session Info", ""]
    if name:
        lines.append(f"Name: {name}")
    lines += [
        f"File: {stats.get('sessionFile') or 'In-memory'}",
        f"ID: {stats.get('sessionId')}",
        "",
        "Messages",
        f"  User: {stats.get('userMessages', 0)}",
        f"  Assistant: {stats.get('assistantMessages', 0)}",
        f"  Tool Calls: {stats.get('toolCalls', 0)}",
        f"  Tool Results: {stats.get('toolResults', 0)}",
        f"  Total: {stats.get('totalMessages', 0)}",
        "",
        "Tokens",
        f"  Input: {tokens.get('input', 0):,}",
        f"  Output: {tokens.get('output', 0):,}",
        f"  Cache Read: {tokens.get('cacheRead', 0):,}",
        f"  Cache Write: {tokens.get('cacheWrite', 0):,}",
        f"  Total: {tokens.get('total', 0):,}",
        "",
        f"Cost: ${float(stats.get('cost', 0.0)):.4f}",
    ]
    return "\n".join(lines)


class SlashCommands:
    """Runs `/name args` typed in the editor. Unknown names go to the engine (templates, skills, extensions)."""

    def __init__(self, app: AtomicApp) -> None:
        self.app = app
        self.handlers: dict[str, Callable[[str], Awaitable[None]]] = {
            "hotkeys": self._hotkeys,
            "new": self._new,
            "name": self._name,
            "session": self._session,
            "clone": self._clone,
            "compact": self._compact,
            "export": self._export,
            "copy": self._copy,
            "permissions": self._permissions,
            "quit": self._quit,
            "trust": self._trust,
        }

    def handles(self, text: str) -> bool:
        name = text[1:].split(maxsplit=1)[0] if text.startswith("/") and len(text) > 1 else ""
        return name in self.handlers or name in SCREENS

    async def run(self, text: str) -> bool:
        parts = text[1:].split(maxsplit=1)
        if not parts:
            return False
        name, args = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if name in self.handlers:
            await self.handlers[name](args)
            return True
        if name == "model" and args and self._switch_model_directly(args):
            return True
        if name in SCREENS:
            self.open_screen(name, args)
            return True
        return False

    async def _permissions(self, args: str) -> None:
        session = self.app.session
        if not args:
            self.app.notify(
                f"Permission mode: {session.permissions.mode}. /permissions ask|accept-edits|yolo changes it; "
                "f2 cycles."
            )
            return
        try:
            session.set_permission_mode(args.strip(), persist=True)
        except ValueError as exc:
            self.app.notify(str(exc), severity="error")
            return
        self.app.notify(f"Permission mode: {session.permissions.mode}")

    def _switch_model_directly(self, term: str) -> bool:
        """`/model <term>`: switch when exactly one available model is `id` or `provider/id`."""
        session = self.app.session
        wanted = term.strip().lower()
        matches = [
            m for m in session.available_models() if wanted in (m.id.lower(), f"{m.provider}/{m.id}".lower())
        ]
        if len(matches) != 1:
            return False
        model = matches[0]
        try:
            session.set_model(model.provider, model.id)
        except ValueError as exc:
            self.app.notify(str(exc), severity="error")
            return True
        self.app.notify(f"Switched to {model.name or model.id}")
        return True

    def open_screen(self, name: str, args: str = "") -> None:
        app = self.app
        class_name, extra = SCREENS[name]
        screen_class = load_screen_class(class_name)
        if screen_class is None or app.session is None:
            app.notify(f"/{name} is not available yet", severity="warning")
            return
        if args and name == "model":
            extra = {**extra, "initial_query": args}
        try:
            screen = screen_class(app.session, **extra)
        except Exception as exc:  # a screen bug must not take the app down
            app.show_error(f"/{name} failed to open: {exc}")
            return

        def done(result: Any) -> None:
            if isinstance(result, str) and result.startswith(EDITOR_PREFIX):
                app.restore_to_editor([result.removeprefix(EDITOR_PREFIX)])
            elif isinstance(result, str) and result.startswith(NOTE_PREFIX):
                app.renderer.setup_note(result.removeprefix(NOTE_PREFIX), ready=app.session.model is not None)
            elif isinstance(result, str) and result:
                app.notify(result)
            app.after_state_change()

        app.push_screen(screen, done)

    async def _trust(self, _args: str) -> None:
        from atomic.tui.trust_flow import open_trust_screen

        open_trust_screen(self.app)

    async def _hotkeys(self, _args: str) -> None:
        hotkeys_screen = load_screen_class("HotkeysScreen")
        if hotkeys_screen is None:
            rows = "\n".join(f"{keys:<24} {what}" for keys, what in self.app.keys.describe())
            self.app.renderer.note("Keyboard shortcuts\n\n" + rows)
            return
        self.app.push_screen(hotkeys_screen(self.app.keys.describe()))

    async def _new(self, _args: str) -> None:
        session = self.app.session
        assert session is not None
        if await session.new_session():
            self.app.notify("New session started")
        else:
            self.app.notify("New session cancelled by an extension", severity="warning")

    async def _name(self, args: str) -> None:
        session = self.app.session
        assert session is not None
        if not args:
            current = session.store.name()
            if current:
                self.app.notify(f"Session name: {current}")
            else:
                self.app.notify("Usage: /name <name>", severity="warning")
            return
        session.set_session_name(args)
        self.app.notify(f"Session name set: {args}")

    async def _session(self, _args: str) -> None:
        session = self.app.session
        assert session is not None
        self.app.renderer.note(session_info_text(session.session_stats(), session.store.name()))

    async def _clone(self, _args: str) -> None:
        session = self.app.session
        assert session is not None
        try:
            cloned = await session.clone()
        except ValueError as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self.app.notify("Session cloned" if cloned else "Clone cancelled by an extension")

    async def _compact(self, _args: str) -> None:
        session = self.app.session
        assert session is not None

        async def compact() -> None:
            from atomic.core.engine.compaction_runner import CompactionFailed

            try:
                await session.compact()
            except CompactionFailed:
                pass  # the compaction_end event has reported it in the conversation
            except Exception as exc:
                self.app.show_error(f"Compaction failed: {exc}")

        self.app.run_worker(compact(), group="compact")

    async def _export(self, args: str) -> None:
        session = self.app.session
        assert session is not None
        import asyncio

        from atomic.tui.reports import export_text

        note = self.app.renderer.note("⟳ Exporting the session to HTML…")
        try:
            # Off the UI loop: a long session takes a while to render.
            path = await asyncio.to_thread(session.export_html, args or None)
        except (ValueError, OSError) as exc:
            self.app.renderer.replace_note(note, f"Export failed: {exc}", "error")
            return
        self.app.renderer.replace_note(note, export_text(path))

    async def _copy(self, _args: str) -> None:
        session = self.app.session
        assert session is not None
        text = session.last_assistant_text()
        if not text:
            self.app.notify("No agent messages to copy yet.", severity="warning")
            return
        from atomic.tui.clipboard import copy_text

        copy_text(self.app, text)
        self.app.notify("Copied the last reply to the clipboard")

    async def _quit(self, _args: str) -> None:
        await self.app.action_quit()


class SlashCommandProvider(Provider):
    """Built-in commands in Textual's command palette (F1)."""

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app: Any = self.app
        for name, description in BUILTIN_COMMANDS:
            score = matcher.match(f"/{name} {description}")
            if score > 0:
                yield Hit(score, matcher.highlight(f"/{name}"), _runner(app, name), help=description)

    async def discover(self) -> Hits:
        app: Any = self.app
        for name, description in BUILTIN_COMMANDS:
            yield DiscoveryHit(f"/{name}", _runner(app, name), help=description)


def _runner(app: Any, name: str) -> Callable[[], Any]:
    return lambda: app.run_worker(app.slash.run(f"/{name}"))
