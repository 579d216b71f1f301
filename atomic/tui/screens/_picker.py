"""The shared shape of every picker: a centred panel with a title, a search box, a list and a key hint.

Subclasses say what the rows are (`build_options`) and what choosing one returns (`choose` dismisses
with a typed result; the caller applies it through the engine). The search box keeps the focus so
typing always filters; Up/Down/PageUp/PageDown move the list and Enter picks the highlighted row.
Esc closes with None.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

PANEL_CSS = """
.atomic-panel {
    width: 90%;
    max-width: 110;
    height: auto;
    max-height: 90%;
    background: $surface;
    border: round $primary;
    border-title-color: $text;
    border-title-style: bold;
    padding: 0 1;
}
.atomic-panel .panel-info {
    color: $text-muted;
    height: auto;
}
.atomic-panel .panel-hint {
    color: $text-muted;
    height: 1;
    margin-top: 1;
}
.atomic-panel .panel-detail {
    color: $text-muted;
    height: auto;
    min-height: 1;
}
.atomic-panel .panel-empty {
    color: $warning;
    height: 1;
}
.atomic-panel Input {
    border: none;
    height: 1;
    padding: 0 1;
    margin: 0 0 1 0;
    background: $boost;
}
.atomic-panel Input:focus {
    border: none;
    background-tint: $foreground 5%;
}
.atomic-panel OptionList {
    height: auto;
    max-height: 16;
    border: none;
    padding: 0;
    background: $surface;
}
.atomic-panel OptionList:focus {
    border: none;
    background-tint: $foreground 0%;
}
"""


R = TypeVar("R")


class AtomicModal(ModalScreen[R | None], Generic[R]):
    """A modal with Atomic's panel styles that dismisses with an R; Esc dismisses with None."""

    DEFAULT_CSS = (
        """
    AtomicModal {
        align: center middle;
        background: $background 60%;
    }
    """
        + PANEL_CSS
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Close", show=False)]

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickerScreen(AtomicModal[R]):
    TITLE_TEXT: ClassVar[str] = "Pick"
    HINT: ClassVar[str] = "↑↓ move · enter select · esc close"
    PLACEHOLDER: ClassVar[str] = "Type to search"
    EMPTY_TEXT: ClassVar[str] = "No matches"
    SEARCHABLE: ClassVar[bool] = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", show=False, priority=True),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("pagedown", "page(1)", show=False, priority=True),
        Binding("pageup", "page(-1)", show=False, priority=True),
    ]

    def __init__(self, initial_query: str = "") -> None:
        super().__init__()
        self._initial_query = initial_query
        # Per instance: one screen class can serve two purposes (login and logout).
        self.title_text = self.TITLE_TEXT
        self.hint = self.HINT
        self.empty_text = self.EMPTY_TEXT

    # ------------------------------------------------------------------ subclass API

    def build_options(self, query: str) -> list[Option]:
        raise NotImplementedError

    async def choose(self, option_id: str) -> None:
        """Dismiss with the result for this row (or change the view, e.g. ask for a key)."""
        raise NotImplementedError

    def info_text(self) -> str | Content:
        """A line under the title (scope, warnings); empty hides it."""
        return ""

    def detail_text(self, option_id: str | None) -> str | Content:
        """A line under the list describing the highlighted row; empty hides it."""
        return ""

    def preferred_option_id(self) -> str | None:
        """The row to highlight when the list is (re)built with an empty query: usually the current one."""
        return None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel") as panel:
            panel.border_title = self.title_text
            yield Static("", classes="panel-info")
            search = Input(
                value=self._initial_query, placeholder=self.PLACEHOLDER, id="picker-search", select_on_focus=False
            )
            search.display = self.SEARCHABLE
            yield search
            yield OptionList(id="picker-list")
            yield Static(self.empty_text, classes="panel-empty")
            yield Static("", classes="panel-detail")
            yield Static(self.hint, classes="panel-hint")

    def on_mount(self) -> None:
        self.refresh_options()
        if self.SEARCHABLE:
            self.query_one("#picker-search", Input).focus()
        else:
            self.option_list.focus()

    @property
    def option_list(self) -> OptionList:
        return self.query_one("#picker-list", OptionList)

    @property
    def search_text(self) -> str:
        return self.query_one("#picker-search", Input).value

    def refresh_options(self, keep_id: str | None = None) -> None:
        """Rebuild the rows for the current query, keeping the highlight where it makes sense."""
        query = self.search_text
        options = self.build_options(query)
        option_list = self.option_list
        option_list.set_options(options)
        target = keep_id or (self.preferred_option_id() if not query.strip() else None)
        index = 0
        if target is not None:
            for position, option in enumerate(options):
                if option.id == target:
                    index = position
                    break
        enabled = [i for i, o in enumerate(options) if not o.disabled]
        if enabled and index not in enabled:
            index = enabled[0]
        option_list.highlighted = index if enabled else None
        if option_list.highlighted is not None:
            option_list.scroll_to_highlight()
        self.query_one(".panel-empty", Static).display = not options
        info = self.info_text()
        info_widget = self.query_one(".panel-info", Static)
        info_widget.update(info)
        info_widget.display = bool(info)
        self._update_detail()

    def _update_detail(self) -> None:
        highlighted = self.option_list.highlighted_option
        detail = self.detail_text(highlighted.id if highlighted else None)
        widget = self.query_one(".panel-detail", Static)
        widget.update(detail)
        widget.display = bool(detail)

    # ------------------------------------------------------------------ events

    @on(Input.Changed, "#picker-search")
    def _search_changed(self) -> None:
        self.refresh_options()

    @on(OptionList.OptionHighlighted, "#picker-list")
    def _highlight_changed(self) -> None:
        self._update_detail()

    @on(Input.Submitted, "#picker-search")
    async def _search_submitted(self) -> None:
        await self._choose_highlighted()

    @on(OptionList.OptionSelected, "#picker-list")
    async def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await self._choose_highlighted()

    async def _choose_highlighted(self) -> None:
        option = self.option_list.highlighted_option
        if option is None or option.disabled or option.id is None:
            return
        try:
            await self.choose(option.id)
        except Exception as exc:  # an engine error is shown, never crashes the app
            self.notify(str(exc) or type(exc).__name__, title="Error", severity="error")

    def action_move(self, step: int) -> None:
        option_list = self.option_list
        if step > 0:
            option_list.action_cursor_down()
        else:
            option_list.action_cursor_up()

    def action_page(self, step: int) -> None:
        option_list = self.option_list
        if step > 0:
            option_list.action_page_down()
        else:
            option_list.action_page_up()
