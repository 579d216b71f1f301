"""Output truncation shared by the tools: keep the model's context small and say how to get the rest.

Two limits apply, whichever is hit first: a line count (2000) and a byte count (50 KB of UTF-8).
`truncate_head` keeps the beginning (file reads, search results); `truncate_tail` keeps the end
(command output, where the last lines usually matter most). Only whole lines are kept, except when a
single line is larger than the byte limit: the tail variant then keeps the end of that line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypedDict

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500

TruncatedBy = Literal["lines", "bytes"]


def format_size(num_bytes: int) -> str:
    """`512B`, `50.0KB`, `1.5MB`: the units used in every notice."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def utf8_len(text: str) -> int:
    # ASCII text (most command output) is one byte per character: no need to encode a copy. A lone
    # surrogate (invalid JSON input can carry one) counts as the 3 bytes it would take, not an error.
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class _Totals(TypedDict):
    """What every truncated result repeats: the input's size and the limits."""

    total_lines: int
    total_bytes: int
    max_lines: int
    max_bytes: int


@dataclass
class Truncation:
    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    # Tail mode only: the kept text is the end of one line longer than the byte limit.
    last_line_partial: bool = False
    # Head mode only: the very first line alone is over the byte limit, so nothing is kept.
    first_line_exceeds_limit: bool = False
    max_lines: int = DEFAULT_MAX_LINES
    max_bytes: int = DEFAULT_MAX_BYTES

    def to_wire(self) -> dict[str, Any]:
        """camelCase dict for tool result details (the shape pi's clients expect)."""
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


def _untruncated(content: str, lines: list[str], total_bytes: int, max_lines: int, max_bytes: int) -> Truncation:
    return Truncation(
        content=content,
        truncated=False,
        truncated_by=None,
        total_lines=len(lines),
        total_bytes=total_bytes,
        output_lines=len(lines),
        output_bytes=total_bytes,
        max_lines=max_lines,
        max_bytes=max_bytes,
    )


def truncate_head(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the start until either limit would be exceeded."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, lines, total_bytes, max_lines, max_bytes)

    common = _Totals(total_lines=len(lines), total_bytes=total_bytes, max_lines=max_lines, max_bytes=max_bytes)
    if utf8_len(lines[0]) > max_bytes:
        return Truncation(
            content="", truncated=True, truncated_by="bytes", output_lines=0, output_bytes=0,
            first_line_exceeds_limit=True, **common,
        )

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for index, line in enumerate(lines[:max_lines]):
        # Every line but the first also costs the newline that joins it to the previous one.
        cost = utf8_len(line) + (1 if index > 0 else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    return Truncation(
        content="\n".join(kept), truncated=True, truncated_by=truncated_by,
        output_lines=len(kept), output_bytes=used, **common,
    )


def _tail_of_line(line: str, max_bytes: int) -> str:
    """The longest end of `line` that fits in `max_bytes`, never splitting a character."""
    raw = line.encode("utf-8")[-max_bytes:]
    # Drop UTF-8 continuation bytes cut off from their lead byte.
    start = 0
    while start < len(raw) and (raw[start] & 0xC0) == 0x80:
        start += 1
    return raw[start:].decode("utf-8", errors="replace")


def truncate_tail(
    content: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the end until either limit would be exceeded."""
    total_bytes = utf8_len(content)
    lines = content.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untruncated(content, lines, total_bytes, max_lines, max_bytes)

    common = _Totals(total_lines=len(lines), total_bytes=total_bytes, max_lines=max_lines, max_bytes=max_bytes)
    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    for line in reversed(lines[-max_lines:]):
        cost = utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            truncated_by = "bytes"
            if not kept:
                partial = _tail_of_line(line, max_bytes)
                return Truncation(
                    content=partial, truncated=True, truncated_by="bytes", output_lines=1,
                    output_bytes=utf8_len(partial), last_line_partial=True, **common,
                )
            break
        kept.append(line)
        used += cost
    kept.reverse()
    return Truncation(
        content="\n".join(kept), truncated=True, truncated_by=truncated_by,
        output_lines=len(kept), output_bytes=used, **common,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Shorten one long line (grep output); returns the text and whether it was cut."""
    if len(line) <= max_chars:
        return line, False
    return line[:max_chars] + "... [truncated]", True


def tail_notice(truncation: Truncation, full_output_path: str | None, last_line_bytes: int = 0) -> str:
    """The notice appended to tail-truncated command output (empty when nothing was cut).

    `last_line_bytes` is the size of the complete final line, reported when it alone was too long.
    """
    if not truncation.truncated:
        return ""
    where = f"Full output: {full_output_path}" if full_output_path else "Full output could not be saved"
    end_line = truncation.total_lines
    if truncation.last_line_partial:
        return (
            f"\n\n[Showing last {format_size(truncation.output_bytes)} of line {end_line} "
            f"(line is {format_size(last_line_bytes)}). {where}]"
        )
    start_line = end_line - truncation.output_lines + 1
    if truncation.truncated_by == "lines":
        return f"\n\n[Showing lines {start_line}-{end_line} of {end_line}. {where}]"
    return (
        f"\n\n[Showing lines {start_line}-{end_line} of {end_line} "
        f"({format_size(truncation.max_bytes)} limit). {where}]"
    )


def listing_text(
    items: list[str], *, limit_notice: str | None, limit_detail: tuple[str, int] | None
) -> tuple[str, dict[str, Any] | None]:
    """A one-item-per-line listing (find, ls) cut to the byte limit, with its notices and details."""
    truncation = truncate_head("\n".join(items), max_lines=10**12)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if limit_notice and limit_detail:
        notices.append(limit_notice)
        details[limit_detail[0]] = limit_detail[1]
    if truncation.truncated:
        notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
        details["truncation"] = truncation.to_wire()
    text = truncation.content
    if notices:
        text += f"\n\n[{'. '.join(notices)}]"
    return text, details or None
