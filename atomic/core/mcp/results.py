"""Bounding what an MCP tool result puts into the model's context.

A server can answer a call with megabytes of text (a file read through a filesystem server), and
every later request would carry it again. Like read and bash, a result keeps at most
`max_lines` lines or `max_bytes` bytes of text, whichever comes first; the whole text goes to a
0600 file in the session's temp tree, named in the result so the model can read further with the
read tool. Images are not text: they are kept as they are and do not count against the limit.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from atomic.core.messages import ImageContent, TextContent
from atomic.core.temp_output import SpillFile
from atomic.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    utf8_len,
)

Block = TextContent | ImageContent


@dataclass(frozen=True)
class ResultLimits:
    max_bytes: int = DEFAULT_MAX_BYTES
    max_lines: int = DEFAULT_MAX_LINES


@dataclass(frozen=True)
class BoundedResult:
    blocks: list[Block]
    # Set when text was cut: where the whole text is (None if it could not be saved), and its size.
    full_output_path: str | None = None
    total_bytes: int = 0
    total_lines: int = 0

    @property
    def truncated(self) -> bool:
        return self.total_bytes > 0


def _text_of(blocks: list[Block]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))


def bound_result(blocks: list[Block], limits: ResultLimits, *, session_id: str | None, tool: str) -> BoundedResult:
    """The blocks unchanged when their text fits; else the text's head, a notice, and the images."""
    text = _text_of(blocks)
    total_bytes = utf8_len(text)
    total_lines = text.count("\n") + 1
    if total_bytes <= limits.max_bytes and total_lines <= limits.max_lines:
        return BoundedResult(blocks)
    path = save_full_text(text, session_id=session_id, tool=tool)
    cut = truncate_head(text, limits.max_lines, limits.max_bytes)
    where = f"Full output: {path}" if path else "Full output could not be saved"
    if cut.first_line_exceeds_limit:
        # One enormous line (minified JSON): keep its start rather than nothing.
        head = text.encode("utf-8")[: limits.max_bytes].decode("utf-8", errors="ignore")
        notice = f"[Showing the first {format_size(utf8_len(head))} of {format_size(total_bytes)}. {where}]"
    else:
        head = cut.content
        limit = f"{format_size(limits.max_bytes)} limit" if cut.truncated_by == "bytes" else (
            f"{limits.max_lines} lines limit"
        )
        notice = (
            f"[Showing lines 1-{cut.output_lines} of {total_lines} ({limit}; "
            f"{format_size(total_bytes)} in all). {where}]"
        )
    images = [b for b in blocks if isinstance(b, ImageContent)]
    bounded: list[Block] = [TextContent(text=f"{head}\n\n{notice}"), *images]
    return BoundedResult(bounded, path, total_bytes, total_lines)


def bound_text(text: str, limits: ResultLimits, *, session_id: str | None, tool: str) -> str:
    """An error message bounded the same way (a server can fail with a huge message too)."""
    bounded = bound_result([TextContent(text=text)], limits, session_id=session_id, tool=tool)
    return _text_of(bounded.blocks)


def save_full_text(text: str, *, session_id: str | None, tool: str) -> str | None:
    spill = SpillFile.create(session_id, f"atomic-mcp-{tool}-{secrets.token_hex(6)}.txt")
    if spill is None:
        return None
    with spill:
        spill.write(text)
    return str(spill.path)
