"""/settings: every setting with its value; changes are saved to settings.json and applied at once.

The screen saves a change and applies it to the engine; for what the app shows (theme, CSS classes) it
posts a `SettingChanged` message, which bubbles to the app: the app applies its own look, never the screen.

Keys: ↑↓ move, Enter/Space/→ next value (or edit a number/text), ← previous value, typing filters,
Backspace edits the filter, Esc closes (or leaves the edit box). Typing a search never changes a
setting: while it is being typed, Space is part of it and Enter, ←/→ only end it (the rows take the
keys again); ↑↓ end it too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from atomic.tui.screens._picker import AtomicModal
from atomic.tui.screens.fuzzy import fuzzy_filter
from atomic.tui.screens.settings_items import (
    SETTING_ITEMS,
    SettingItem,
    check_range,
    format_value,
    parse_number,
    stepped,
)

if TYPE_CHECKING:
    from atomic.core.contract import Engine

_LABEL_WIDTH = 28


class SettingChanged(Message):
    """A setting was saved and applied to the engine; the app refreshes what it shows from it."""

    def __init__(self, key: str, value: object) -> None:
        super().__init__()
        self.key = key
        self.value = value


class SettingsScreen(AtomicModal[str]):
    DEFAULT_CSS = """
    SettingsScreen #settings-list { max-height: 24; }
    SettingsScreen #settings-edit { margin: 1 0 0 0; }
    """
    HINT = "↑↓ move · enter/space/→ change · ← back · type to search · esc close"

    def __init__(self, engine: Engine, items: list[SettingItem] | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.items = {item.key: item for item in (items or SETTING_ITEMS)}
        self.filter_text = ""
        self.editing: SettingItem | None = None
        self.changed: list[str] = []
        # True from the first key of a search until Enter, an arrow or a click: keys go to the search.
        self.searching = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel"):
            yield Static("", id="settings-filter", classes="panel-info")
            yield OptionList(id="settings-list")
            yield Static("No matching settings", classes="panel-empty")
            yield Static("", classes="panel-detail")
            edit = Input(id="settings-edit")
            edit.display = False
            yield edit
            yield Static(self.HINT, classes="panel-hint")

    def on_mount(self) -> None:
        self.query_one(".atomic-panel").border_title = "Settings"
        self._rebuild()
        self.option_list.focus()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#settings-list", OptionList)

    # ------------------------------------------------------------------ rendering

    def _row(self, item: SettingItem) -> Option:
        value = format_value(item, item.read(self.engine))
        kind_hint = {"int": " ✎", "float": " ✎", "text": " ✎"}.get(item.kind, "")
        prompt = Content.assemble(
            item.label.ljust(_LABEL_WIDTH),
            (value, "bold $text-accent"),
            (kind_hint, "$foreground-muted"),
        )
        return Option(prompt, id=item.key)

    def _rebuild(self, keep: str | None = None) -> None:
        highlighted = self.option_list.highlighted_option
        keep = keep or (highlighted.id if highlighted else None)
        entries = [(f"{item.label} {item.key}", item) for item in self.items.values()]
        visible: list[SettingItem] = fuzzy_filter(self.filter_text, entries)
        option_list = self.option_list
        option_list.set_options([self._row(item) for item in visible])
        index = next((i for i, item in enumerate(visible) if item.key == keep), 0)
        option_list.highlighted = index if visible else None
        self.query_one(".panel-empty", Static).display = not visible
        search = self.query_one("#settings-filter", Static)
        if self.filter_text and self.searching:
            search.update(
                Content.assemble(
                    "Search: ", (self.filter_text, "bold"), ("▏", "$text-accent"), ("  enter: go to the list", "$foreground-muted")
                )
            )
        elif self.filter_text:
            search.update(Content.assemble("Search: ", (self.filter_text, "bold")))
        else:
            search.update(Content.styled("Type to search", "$foreground-muted"))
        self._show_description()

    def _show_description(self) -> None:
        item = self._highlighted_item()
        self.query_one(".panel-detail", Static).update(item.description if item else "")

    @on(OptionList.OptionHighlighted, "#settings-list")
    def _highlight_changed(self) -> None:
        self._show_description()

    @on(OptionList.OptionSelected, "#settings-list")
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.searching = False  # a click is on a row, not in the search
        self.action_activate()

    def _highlighted_item(self) -> SettingItem | None:
        option = self.option_list.highlighted_option
        return self.items.get(option.id) if option is not None and option.id else None

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        # Every key is handled here, in the order typed: a priority binding would run as the key
        # arrives, before the letters typed just ahead of it reached the search, so a fast "a b"
        # toggled the highlighted row instead of searching for "a b".
        if self.editing is not None:
            return  # the edit box has the keys (Enter submits, arrows move its cursor)
        if event.key in ("up", "down", "pageup", "pagedown") and self.searching:
            self._end_search()  # the arrow still moves the highlight
            return
        row_keys: dict[str, Callable[[], None]] = {
            "enter": self.action_activate,
            "space": lambda: self.action_activate("space"),
            "right": lambda: self.action_step(1),
            "left": lambda: self.action_step(-1),
            "backspace": self.action_filter_backspace,
        }
        handler = row_keys.get(event.key)
        if handler is not None:
            event.stop()
            event.prevent_default()
            handler()
            return
        if event.is_printable and event.character and event.character != " ":
            self.filter_text += event.character
            self.searching = True
            self._rebuild()
            event.stop()
            event.prevent_default()

    def _end_search(self) -> None:
        self.searching = False
        self._rebuild()

    def action_filter_backspace(self) -> None:
        if self.filter_text:
            self.filter_text = self.filter_text[:-1]
            self.searching = bool(self.filter_text)
            self._rebuild()

    def action_cancel(self) -> None:
        if self.editing is not None:
            self._close_editor()
            return
        if self.filter_text:
            self.filter_text = ""
            self.searching = False
            self._rebuild()
            return
        self.dismiss(f"Settings saved ({', '.join(self.changed)})" if self.changed else None)

    def action_activate(self, key: str = "enter") -> None:
        if self.searching:
            if key == "space":
                self.filter_text += " "
                self._rebuild()
            else:
                self._end_search()
            return
        item = self._highlighted_item()
        if item is None:
            return
        if item.kind in ("int", "float", "text"):
            self._open_editor(item)
        else:
            self._change(item, 1)

    def action_step(self, direction: int) -> None:
        if self.searching:
            self._end_search()
            return
        item = self._highlighted_item()
        if item is None or item.kind == "text":
            return
        self._change(item, direction)

    def _change(self, item: SettingItem, direction: int) -> None:
        current = item.read(self.engine)
        if item.kind == "choice":
            choices = item.choices(self.engine) if item.choices else []
            if not choices:
                return
            index = choices.index(current) if current in choices else -1
            new_value = choices[(index + direction) % len(choices)]
        else:
            new_value = stepped(item, current, direction)
        if new_value != current:
            self.set_value(item, new_value)

    # ------------------------------------------------------------------ editing numbers and text

    def _open_editor(self, item: SettingItem) -> None:
        self.editing = item
        edit = self.query_one("#settings-edit", Input)
        current = item.read(self.engine)
        edit.value = "" if current is None else str(current)
        edit.placeholder = f"{item.label} (enter save · esc cancel)"
        edit.display = True
        edit.focus()

    def _close_editor(self) -> None:
        self.editing = None
        edit = self.query_one("#settings-edit", Input)
        edit.display = False
        self.option_list.focus()

    @on(Input.Submitted, "#settings-edit")
    def _edit_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        item = self.editing
        if item is None:
            return
        current = item.read(self.engine)
        try:
            if item.kind == "text":
                # An empty text removes the key, so the engine's default applies again.
                value: Any = event.value.strip() or None
                current = current or None
            else:
                value = parse_number(item, event.value)
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        self._close_editor()
        if value != current:
            self.set_value(item, value)

    # ------------------------------------------------------------------ saving and applying

    def set_value(self, item: SettingItem, value: Any) -> bool:
        """Save one setting to settings.json and apply it to the engine and the app; False on error."""
        try:
            if item.kind in ("int", "float") and value is not None:
                value = check_range(item, value)
            if item.save:
                self.engine.save_settings({item.key: value})
            if item.apply is not None:
                item.apply(self.engine, value)
        except Exception as exc:  # a broken settings.json or an engine refusal is shown, not raised
            self.notify(str(exc), title="Setting not saved", severity="error")
            return False
        self.post_message(SettingChanged(item.key, value))
        if item.label not in self.changed:
            self.changed.append(item.label)
        self._rebuild(keep=item.key)
        return True
