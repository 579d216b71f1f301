"""The app's default screen: what the user types is painted at once, not on the next 60 fps tick.

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


def paints_at_once(widget: Any) -> bool:
    return bool(getattr(widget, "PAINT_AT_ONCE", False))


class MainScreen(Screen[None]):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._paint_now = False

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
