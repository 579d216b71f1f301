"""The end of a command's output with its colours kept, for frontends to show: never the model, never stored.

The bash tool keeps it beside the plain output tail (output_tail.py). Its lines are the plain lines with
their SGR sequences (`ESC [ … m`, the only escapes left in it: shell.keep_colours), so it is cut to the
same last lines the model gets. Where a cut has to fall inside a line, it moves past a sequence it would
otherwise split, so no half escape ever shows as text.
"""

from __future__ import annotations

from atomic.core.tools.truncate import DEFAULT_MAX_BYTES

# Characters kept: twice the plain tail's, as colour sequences can make the text that much longer.
DISPLAY_KEEP_CHARS = 4 * DEFAULT_MAX_BYTES


def escape_safe_start(text: str, start: int) -> int:
    """`start`, or the index just after the SGR sequence `start` falls inside."""
    escape = text.rfind("\x1b", 0, start)
    if escape < 0:
        return start
    # The parameters of an SGR sequence never contain "m": the first one after ESC ends it.
    end = text.find("m", escape)
    return end + 1 if end >= start else start


class DisplayTail:
    def __init__(self, keep_chars: int = DISPLAY_KEEP_CHARS) -> None:
        self._keep_chars = keep_chars
        self._chunks: list[str] = []
        self._kept_chars = 0
        self._dropped_front = False
        # Whether any colour was seen: without one the plain text says it all.
        self.coloured = False

    def append(self, text: str) -> None:
        if not text:
            return
        if not self.coloured and "\x1b" in text:
            self.coloured = True
        self._chunks.append(text)
        self._kept_chars += len(text)
        if self._kept_chars > 2 * self._keep_chars:
            joined = "".join(self._chunks)
            kept = joined[escape_safe_start(joined, len(joined) - self._keep_chars) :]
            self._chunks = [kept]
            self._kept_chars = len(kept)
            self._dropped_front = True

    def text(self, lines: int) -> str:
        """The last `lines` lines (fewer when fewer are kept); a final newline ends the last line."""
        text = "".join(self._chunks)
        if self._dropped_front:
            # The first kept line is a fragment; whole lines only, unless nothing else is left.
            newline = text.find("\n")
            if 0 <= newline < len(text) - 1:
                text = text[newline + 1 :]
        text = text[:-1] if text.endswith("\n") else text
        if lines <= 0:
            return ""
        return "\n".join(text.split("\n")[-lines:])
