"""Feeding raw terminal bytes to a running app, through Textual's own input parser (as its driver does)."""

from __future__ import annotations

from typing import Any

from textual._xterm_parser import XTermParser


class Terminal:
    """What a terminal writes to the app's stdin, parsed like the real driver parses it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.parser = XTermParser()

    def write(self, data: str) -> None:
        """Bytes arriving in one read (a fast typist, or a key the terminal sends as several bytes)."""
        for event in self.parser.feed(data):
            self.app.post_message(event)

    def tick(self) -> None:
        """Let the parser time out a pending ESC (the driver ticks it while no bytes arrive)."""
        for event in self.parser.tick():
            self.app.post_message(event)
