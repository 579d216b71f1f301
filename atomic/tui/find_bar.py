"""The find bar (Ctrl+S): search the transcript as shown, jump between matches, Esc closes.

Matches are searched in what is displayed (rendered markdown, tool output as shown, collapsed thinking
skipped), case-insensitively. The current match is marked with Textual's text selection, so it is
highlighted like a mouse selection and Ctrl+C copies it. The search starts at the newest match (the
bottom); Enter, Up and Ctrl+S go to older matches, Shift+Enter and Down to newer ones, wrapping around.
Older messages not mounted (above the "earlier messages" pager of a long session) are searched too: the
count says `more above` when they hold the text, and going older past the oldest shown match mounts them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.geometry import Offset
from textual.selection import SELECT_ALL, Selection
from textual.widget import Widget
from textual.widgets import Input, Static

from atomic.tui.conversation import Conversation
from atomic.tui.streaming import StreamingMarkdown


@dataclass(frozen=True)
class Match:
    widget: Widget
    line: int  # line of the widget's selectable text (for rendered markdown: the row on screen)
    start: int
    end: int

    @property
    def selection(self) -> Selection:
        return Selection(Offset(self.start, self.line), Offset(self.end, self.line))


def _shown(widget: Widget, root: Widget) -> bool:
    node: Widget | None = widget
    while node is not None and node is not root:
        if not node.display:
            return False
        parent = node.parent
        node = parent if isinstance(parent, Widget) else None
    return True


def find_matches(conversation: Conversation, query: str) -> list[Match]:
    """Every occurrence of `query` in the transcript, top to bottom."""
    if not query:
        return []
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    matches: list[Match] = []
    for widget in conversation.query("*"):
        if widget.children or not _shown(widget, conversation):
            continue
        if isinstance(widget, StreamingMarkdown):
            shown = widget.shown_lines()  # row by row: a copy joins wrapped rows, find must not
            text = None if shown is None else "\n".join(shown)
        else:
            selected = widget.get_selection(SELECT_ALL)
            text = None if selected is None else selected[0]
        if text is None:
            continue
        for line_number, line in enumerate(text.splitlines()):
            for found in pattern.finditer(line):
                matches.append(Match(widget, line_number, found.start(), found.end()))
    return matches


class FindBar(Horizontal):
    DEFAULT_CSS = """
    FindBar { display: none; height: 1; margin: 0 1; background: $boost; }
    FindBar.-open { display: block; }
    FindBar > .find-label { width: auto; color: $accent; text-style: bold; padding: 0 1; }
    FindBar > Input { border: none; height: 1; width: 1fr; padding: 0 0; background: $boost; }
    FindBar > Input:focus { border: none; background: $boost; }
    FindBar > .find-count { width: auto; color: $text-muted; padding: 0 1; }
    FindBar.-no-match > .find-count { color: $warning; }
    FindBar > .find-hint { width: auto; color: $text-muted; padding: 0 1 0 0; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "older", "Older match", show=False),
        Binding("down", "newer", "Newer match", show=False),
        Binding("shift+enter", "newer", "Newer match", show=False),
    ]

    def __init__(
        self,
        conversation: Conversation,
        *,
        earlier_contains: Callable[[str], bool] | None = None,
        load_earlier: Callable[[], bool] | None = None,
        cursor_blink: bool = True,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.conversation = conversation
        self.earlier_contains = earlier_contains
        self.load_earlier = load_earlier
        self.cursor_blink = cursor_blink
        self.matches: list[Match] = []
        self.current: Match | None = None

    def compose(self) -> ComposeResult:
        yield Static("Find", classes="find-label")
        yield Input(placeholder="search the transcript", id="find-input", select_on_focus=True)
        yield Static("", classes="find-count")
        yield Static("enter/↑ older · shift+enter/↓ newer · esc close", classes="find-hint")

    @property
    def input(self) -> Input:
        return self.query_one("#find-input", Input)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open(self) -> None:
        self.add_class("-open")
        self.input.cursor_blink = self.cursor_blink
        self.input.focus()
        if self.input.value:
            self.search(self.input.value)

    def close(self) -> None:
        """Hide the bar and its highlight; the transcript stays where the search left it."""
        if self.current is not None:
            self.screen.clear_selection()
        self.current = None
        self.matches = []
        self.remove_class("-open")

    # ------------------------------------------------------------------ searching

    @on(Input.Changed, "#find-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.step(-1)

    def action_older(self) -> None:
        self.step(-1)

    def action_newer(self) -> None:
        self.step(1)

    def search(self, query: str) -> None:
        """Find `query` anew and show the newest match."""
        self.matches = find_matches(self.conversation, query)
        self._show(self.matches[-1] if self.matches else None)

    def step(self, direction: int) -> None:
        """Go to the next older (-1) or newer (1) match; the transcript may have grown meanwhile."""
        query = self.input.value
        self.matches = find_matches(self.conversation, query)
        at_oldest = not self.matches or (self.current in self.matches and self.matches.index(self.current) == 0)
        if direction < 0 and at_oldest and self._more_above(query) and self.load_earlier is not None and self.load_earlier():
            self.query_one(".find-count", Static).update("loading earlier messages…")
            self.call_after_refresh(self._after_loading)
            return
        if not self.matches:
            self._show(None)
            return
        index = self.matches.index(self.current) if self.current in self.matches else len(self.matches)
        if self.current not in self.matches and direction > 0:
            index = -1
        self._show(self.matches[(index + direction) % len(self.matches)])

    def _more_above(self, query: str) -> bool:
        return bool(query) and self.earlier_contains is not None and self.earlier_contains(query)

    def _after_loading(self) -> None:
        """The earlier messages are mounted: the match just older than the one shown (or the newest)."""
        self.matches = find_matches(self.conversation, self.input.value)
        if self.current in self.matches and self.matches.index(self.current) > 0:
            self._show(self.matches[self.matches.index(self.current) - 1])
        else:
            self._show(self.matches[-1] if self.matches else None)

    def _show(self, match: Match | None) -> None:
        self.current = match
        count = self.query_one(".find-count", Static)
        self.set_class(match is None and bool(self.input.value), "-no-match")
        more = " · more above (↑)" if self._more_above(self.input.value) else ""
        if match is None:
            count.update(("no matches" if self.input.value else "") + more)
            self.screen.clear_selection()
            return
        count.update(f"{self.matches.index(match) + 1}/{len(self.matches)}{more}")
        self.screen.selections = {match.widget: match.selection}
        self._scroll_to_match(match)

    def _scroll_to_match(self, match: Match) -> None:
        conversation = self.conversation
        widget = match.widget
        region = widget.region
        if not region.height:
            conversation.scroll_to_widget(widget, animate=False, immediate=True)
            return
        # Where the match's line is in the transcript's scrollable space; centred in the view.
        top = region.y - conversation.content_region.y + round(conversation.scroll_y)
        line_y = top + min(match.line, region.height - 1)
        view = conversation.scrollable_content_region.height
        conversation.scroll_to(y=max(0, line_y - view // 2), animate=False, immediate=True)
