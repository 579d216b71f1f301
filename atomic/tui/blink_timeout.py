"""The editor's cursor blinks after a key and stops blinking after a few quiet seconds.

Each blink redraws the cursor's line, ~2 frames a second for as long as the app is open: most of
what an idle app costs. A caret that rests after a while (as Windows' caret timeout and GTK's
cursor-blink-timeout do) leaves an idle app drawing nothing; the cursor stays visible. An app just
opened has had no key yet, so its cursor starts at rest: opened and left alone, it draws nothing.
"""

from __future__ import annotations

import time

from textual.timer import Timer
from textual.widgets import TextArea

QUIET_S = 5.0


class BlinkTimeout:
    def __init__(self, area: TextArea, quiet_s: float = QUIET_S) -> None:
        self.area = area
        self.quiet_s = quiet_s
        self.enabled = False
        self.last_activity = time.monotonic()
        self.timer: Timer | None = None

    def start(self) -> None:
        """Call once the area's `cursor_blink` says whether the user wants a blinking cursor; the
        cursor rests (shown, not blinking) until the first key."""
        self.enabled = self.area.cursor_blink
        self.area.cursor_blink = False

    def touch(self) -> None:
        """A key: blinking resumes (if it had rested) and the quiet period starts over."""
        if not self.enabled:
            return
        self.last_activity = time.monotonic()
        if self.timer is None:
            self.area.cursor_blink = True
            self.timer = self.area.set_timer(self.quiet_s, self._rest_when_quiet)

    def _rest_when_quiet(self) -> None:
        left = self.last_activity + self.quiet_s - time.monotonic()
        if left > 0:
            self.timer = self.area.set_timer(left, self._rest_when_quiet)
            return
        self.timer = None
        self.area.cursor_blink = False
