"""The app's default screen: typing always reaches the editor, and is painted at once.

Focus: the transcript never keeps the focus. A click there (to select text, to scroll) leaves the
editor focused, and a printable key that reaches this screen with nothing focused goes to the editor.
Widgets in the transcript that must take the keyboard (an inline approval prompt) carry the
`TAKES_FOCUS` class. The find bar and modal screens (pickers, dialogs) take the keys while open.

Selection: when the mouse releases a text selection, it is copied (clipboard.copy_text: OSC 52 and the
system clipboard).

Painting:
Textual paints from a 60 fps timer that pauses when nothing is dirty. After a frame, the timer's next
tick lands one to two periods later (it re-aligns to its grid), so while a reply streams, a key that
arrived just after a stream frame waited up to ~33 ms for its echo. Widgets that set
`PAINT_AT_ONCE = True` (the editor and its completion popup) skip that wait: as soon as the screen has
taken their update, it paints (including any layout the stream left pending, which is cheap).
"""

from __future__ import annotations

from typing import Any

from textual import events, messages
from textual.screen import Screen
from textual.widget import Widget

from atomic.tui.clipboard import copy_text
from atomic.tui.conversation import Conversation
from atomic.tui.editor import PromptEditor

TAKES_FOCUS = "-takes-focus"


def paints_at_once(widget: Any) -> bool:
    # foreign: any Textual widget can ask for a repaint; only ours declare PAINT_AT_ONCE.
    return bool(getattr(widget, "PAINT_AT_ONCE", False))


def in_transcript(widget: Widget | None) -> bool:
    """Is the widget the transcript or inside it (and not a widget that takes the keyboard)?"""
    node: Any = widget
    while node is not None:
        if isinstance(node, Widget) and node.has_class(TAKES_FOCUS):
            return False
        if isinstance(node, Conversation):
            return True
        node = node.parent
    return False


class MainScreen(Screen[None]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._paint_now = False

    # ------------------------------------------------------------------ focus and typing

    def _editor(self) -> PromptEditor | None:
        editors = self.query(PromptEditor)
        return editors.first() if editors else None

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        # A click in the transcript focuses the nearest focusable widget under the mouse; give the
        # keyboard back to the editor so the next keys are not dropped.
        editor = self._editor()
        if editor is not None and in_transcript(event.widget):
            editor.focus(scroll_visible=False)

    def on_key(self, event: events.Key) -> None:
        # Keys reach the screen when nothing is focused, or when the focused widget let them bubble.
        focused = self.focused
        if focused is not None and not in_transcript(focused):
            return
        editor = self._editor()
        if editor is None or not event.is_printable or event.character is None:
            return
        event.stop()
        editor.focus(scroll_visible=False)
        editor.insert(event.character)

    def on_text_selected(self, _event: events.TextSelected) -> None:
        """The mouse released a selection: copy it (a plain click clears the selection and copies nothing)."""
        self.copy_selection()

    def on_click(self, event: events.Click) -> None:
        # A double click selects a block, a triple click the whole message (Textual): copy that too.
        if event.chain >= 2:
            self.call_later(self.copy_selection)

    def copy_selection(self) -> None:
        text = self.get_selected_text()
        if text:
            copy_text(self.app, text)
            self.app.notify(f"Copied {len(text):,} characters (ctrl+c copies again)", timeout=2)

    # These run before Screen's own handlers for the same messages (Textual walks the MRO), which
    # record the dirty widget or pending layout; the frame itself is painted when the queue is idle.
    async def _on_update(self, message: messages.Update) -> None:
        if paints_at_once(message.widget):
            self._paint_now = True

    async def _on_layout(self, message: messages.Layout) -> None:
        if paints_at_once(message.widget):
            self._paint_now = True

    async def _on_idle(self, event: events.Idle) -> None:
        if self._paint_now:
            self._paint_now = False
            if self.is_current and not self.app._batch_count:
                # Exactly what the update timer would run on its next tick.
                self._on_timer_update()
