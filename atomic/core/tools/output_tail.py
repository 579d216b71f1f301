"""A rolling buffer for streamed command output that can be tail-truncated at any moment.

Command output can be far larger than what the model sees, so only the end is kept in memory
(twice the byte limit, which always covers the last 2000 lines or 50 KB) while exact totals
(bytes, lines, the size of the last line) are counted as the text streams through.
"""

from __future__ import annotations

from atomic.core.temp_output import SpillFile
from atomic.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    Truncation,
    truncate_tail,
    utf8_len,
)


class OutputTail:
    def __init__(self, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        # Characters kept; one character is at least one byte, so this many chars hold >= 2x max_bytes.
        self._keep_chars = 2 * max_bytes
        self._chunks: list[str] = []
        self._kept_chars = 0
        self._dropped_front = False
        self.total_bytes = 0
        self._newlines = 0
        self._current_line_bytes = 0
        self._last_complete_line_bytes = 0

    def append(self, text: str) -> None:
        if not text:
            return
        self.total_bytes += utf8_len(text)
        # Counted in bulk (C loops over the chunk); only the last two lines need their own sizes.
        last = text.rfind("\n")
        if last < 0:
            self._current_line_bytes += utf8_len(text)
        else:
            self._newlines += text.count("\n")
            previous = text.rfind("\n", 0, last)
            if previous < 0:
                self._last_complete_line_bytes = self._current_line_bytes + utf8_len(text[:last])
            else:
                self._last_complete_line_bytes = utf8_len(text[previous + 1 : last])
            self._current_line_bytes = utf8_len(text[last + 1 :])
        self._chunks.append(text)
        self._kept_chars += len(text)
        if self._kept_chars > 2 * self._keep_chars:
            joined = "".join(self._chunks)[-self._keep_chars :]
            self._chunks = [joined]
            self._kept_chars = len(joined)
            self._dropped_front = True

    @property
    def total_lines(self) -> int:
        """Lines of output; a final newline ends the last line rather than starting an empty one."""
        if self.total_bytes == 0:
            return 0
        return self._newlines + (1 if self._current_line_bytes else 0)

    @property
    def last_line_bytes(self) -> int:
        return self._current_line_bytes if self._current_line_bytes else self._last_complete_line_bytes

    def _kept_text(self) -> str:
        text = "".join(self._chunks)
        if self._dropped_front:
            # The first kept line is a fragment; whole lines only, unless nothing else is left.
            newline = text.find("\n")
            if 0 <= newline < len(text) - 1:
                text = text[newline + 1 :]
        return text[:-1] if text.endswith("\n") else text

    def snapshot(self) -> Truncation:
        """Tail-truncated view of everything appended so far, with totals over the whole stream."""
        result = truncate_tail(self._kept_text(), self.max_lines, self.max_bytes)
        result.total_lines = self.total_lines
        result.total_bytes = self.total_bytes
        if self._dropped_front:
            result.truncated = True
            if result.truncated_by is None:
                result.truncated_by = "bytes"
        return result


class SpillingCapture:
    """An OutputTail that also saves the full output to the session temp tree once it gets too big.

    Small outputs never touch the disk. The first time the limits are exceeded, everything seen so
    far is written to the spill file and later text is appended as it arrives.
    """

    def __init__(self, session_id: str | None, file_name: str) -> None:
        self.tail = OutputTail()
        self._session_id = session_id
        self._file_name = file_name
        self._early_chunks: list[str] | None = []
        self.spill: SpillFile | None = None

    def append(self, text: str) -> None:
        self.tail.append(text)
        if self._early_chunks is None:
            if self.spill is not None:
                self.spill.write(text)
            return
        self._early_chunks.append(text)
        if self.tail.total_bytes > self.tail.max_bytes or self.tail.total_lines > self.tail.max_lines:
            self.spill = SpillFile.create(self._session_id, self._file_name)
            if self.spill is not None:
                self.spill.write("".join(self._early_chunks))
            self._early_chunks = None

    @property
    def full_output_path(self) -> str | None:
        return str(self.spill.path) if self.spill is not None else None

    def snapshot(self) -> Truncation:
        return self.tail.snapshot()

    def close(self) -> None:
        if self.spill is not None:
            self.spill.close()
