"""The editor's completion popup: what it offers (built-in and engine slash commands, extension command
arguments, @files) and what Up/Down/Tab/Enter do while it is open."""

from __future__ import annotations

from atomic.tui.commands import COMMANDS
from atomic.tui.completion import MAX_ITEMS, CompletionItem, FileIndex, find_context, rank
from atomic.tui.host import AppHost


class CompletionFlow:
    def __init__(self, app: AppHost, files: FileIndex) -> None:
        self.app = app
        self.files = files

    def update(self) -> None:
        """Open, refresh or close the popup for the text and cursor as they are now."""
        app = self.app
        if app.engine is None:
            return
        row, column = app.editor.cursor_location
        app.completion.source = (app.editor.text, (row, column))
        # Extension commands complete their arguments; only a first line starting with "/" can name one.
        arg_commands = self._extension_command_names() if app.editor.text.startswith("/") else set()
        context = find_context(app.editor.text, row, column, arg_commands)
        if context is None:
            app.completion.close()
            return
        if context.kind == "args":
            try:
                values = app.engine.complete_command_argument(context.command, context.query)
            except Exception:  # an extension's completer failing must not break typing
                values = []
            items = [CompletionItem(str(v), str(v)) for v in values[:MAX_ITEMS]]
            app.completion.open_with(items, context)
            return
        if context.kind == "slash":
            items = [CompletionItem(f"/{c.name} ", f"/{c.name}", c.description) for c in COMMANDS]
            commands = app.engine.commands()
            # Templates and skills, then extension commands.
            ordered = [c for c in commands if c.source != "extension"] + [c for c in commands if c.source == "extension"]
            for command in ordered:
                name = command.name
                items.append(CompletionItem(f"/{name} ", f"/{name}", command.description or ""))
            ranked = rank(items, "/" + context.query) if context.query else items[:MAX_ITEMS]
            app.completion.open_with(ranked, context)
        else:
            app.completion.open_with(self._mentions(context.query) + self.files.complete(context.query), context)

    def _mentions(self, query: str) -> list[CompletionItem]:
        """MCP resources (`@docs:file:///guide.md`) before the files, once something is typed after `@`."""
        app = self.app
        if app.engine is None or not query:
            return []
        items = [CompletionItem(mention, mention, about) for mention, about in app.engine.mcp.resource_mentions()]
        return rank(items, "@" + query)[:MAX_ITEMS]

    def popup_key(self, key: str) -> bool:
        """A key the editor offers the popup first; True when the popup used it."""
        app = self.app
        if app.completion.is_open and app.completion.source != (app.editor.text, app.editor.cursor_location):
            # Keys arrived faster than the editor's Changed events (a fast typist, a paste, a busy loop):
            # the popup still shows an older prefix. Never apply it; recompute from the text as it is now.
            self.update()
        if not app.completion.is_open:
            return False
        if key in ("up", "down"):
            app.completion.move(-1 if key == "up" else 1)
            return True
        item, context = app.completion.selected(), app.completion.context
        if item is None or context is None:
            return False
        if key == "enter" and context.kind == "slash" and item.value.strip() == app.editor.text.strip():
            app.completion.close()
            return False  # the command is already complete: Enter sends it
        app.completion.close()
        app.editor.replace(item.value if item.value.endswith(("/", " ")) else item.value + " ", context.start, context.end)
        return True

    def _extension_command_names(self) -> set[str]:
        return {c.name for c in self.app.engine.commands() if c.source == "extension"}
