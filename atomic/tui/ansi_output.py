"""Tool output with its colours, made safe to show: SGR sequences (`ESC [ … m`: colour, bold, underline)
become styles; every other escape and control character is dropped.

The text may come from a hostile model's command, so nothing in it reaches the terminal as it is: no
title (OSC 0/2), hyperlink (OSC 8), clipboard write (OSC 52), cursor move, clear, mode switch or reset,
no C1 control (some terminals act on U+009B as on `ESC [`), and no concealed or blinking text.
"""

from __future__ import annotations

import re

from textual.content import Content

# The SGR sequence (kept: group 1) first, then everything else that is removed; an unfinished sequence
# (no final byte, no terminator) goes to its end.
_ESCAPES = re.compile(
    r"(\x1b\[[0-9;:]*m)"
    r"|\x1b\[[0-?]*[ -/]*[@-~]?"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _kept(match: re.Match[str]) -> str:
    return match.group(1) or ""


def safe_colours(text: str) -> str:
    """`text` with its SGR sequences and nothing else: no other escape, no control but tab and newline."""
    return _ESCAPES.sub(_kept, text)


def plain_text(text: str) -> str:
    """`text` without any escape or control but tab and newline (what `coloured_content` shows, unstyled)."""
    # One scan for a control character first: most text has none, and the full pattern is slower.
    return _ESCAPES.sub("", text) if _CONTROL.search(text) else text


def coloured_content(text: str) -> Content:
    """The text as styled content (text without escapes as it is)."""
    if "\x1b" not in text:
        return Content(plain_text(text))
    from rich.style import Style
    from rich.text import Text

    rich_text = Text.from_ansi(safe_colours(text))
    # Hidden or blinking text could make output look other than it is.
    calm = Style(conceal=False, blink=False, blink2=False)
    for index, span in enumerate(rich_text.spans):
        style = span.style
        if isinstance(style, Style) and (style.conceal or style.blink or style.blink2):
            rich_text.spans[index] = span._replace(style=style + calm)
    return Content.from_rich_text(rich_text)


def coloured_tail(text: str, lines: int) -> Content:
    """The last `lines` lines of `text`, in the colours the text before them left set."""
    start = len(text)
    for _ in range(lines):
        start = text.rfind("\n", 0, start)
        if start < 0:
            return coloured_content(text)
    before, tail = text[:start], text[start + 1 :]
    if "\x1b" not in before:
        return coloured_content(tail)
    # The state after a full reset does not depend on anything before it.
    since_reset = before[max(before.rfind("\x1b[0m"), before.rfind("\x1b[m")) + 1 :]
    state = "".join(_SGR.findall(safe_colours(since_reset)))
    return coloured_content(state + tail)
