"""Tool output with its colours, made safe to show: SGR sequences (`ESC [ … m`: colour, bold, underline)
become styles; every other escape and control character is dropped.

The text may come from a hostile model's command, so nothing in it reaches the terminal as it is: no
title (OSC 0/2), hyperlink (OSC 8), clipboard write (OSC 52), cursor move, clear, mode switch or reset,
no C1 control (some terminals act on U+009B as on `ESC [`), and no concealed or blinking text.
"""

from __future__ import annotations

import re
from functools import lru_cache

from textual.content import Content, Span
from textual.style import Style

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
    if _CONTROL.search(_SGR.sub("", text)) is None:
        return text  # SGR only already (the engine's display text): two C scans, no call per sequence
    return _ESCAPES.sub(_kept, text)


def plain_text(text: str) -> str:
    """`text` without any escape or control but tab and newline (what `coloured_content` shows, unstyled)."""
    # One scan for a control character first: most text has none, and the full pattern is slower.
    return _ESCAPES.sub("", text) if _CONTROL.search(text) else text


# What SGR sets: foreground and background (None, (n,) for a palette colour, (r, g, b)), then bold, dim,
# italic, underline, reverse, strike. Blink and conceal are read and dropped: text shows as it is.
_Colour = tuple[int, ...] | None
_State = tuple[_Colour, _Colour, tuple[bool, ...]]
_PLAIN: _State = (None, None, (False,) * 6)
_FLAGS_ON = {1: 0, 2: 1, 3: 2, 4: 3, 21: 3, 7: 4, 9: 5}
_FLAGS_OFF = {22: (0, 1), 23: (2,), 24: (3,), 27: (4,), 29: (5,)}


def _colour(codes: list[int], index: int) -> tuple[_Colour, int]:
    """The extended colour at `codes[index:]` (after 38 or 48) and how many codes it used."""
    kind = codes[index] if index < len(codes) else None
    if kind == 5 and index + 1 < len(codes):
        return (codes[index + 1] & 0xFF,), 2
    if kind == 2 and index + 3 < len(codes):
        return tuple(min(255, c) for c in codes[index + 1 : index + 4]), 4
    return None, len(codes) - index


def _code(part: str) -> int:
    """One parameter's number: empty is 0; a sub-parameter (`4:3`, curly underline) counts as its first
    number; one too long to mean anything (a hostile `ESC[99…9m`) is -1, which sets nothing."""
    head = part.split(":", 1)[0]
    if not head:
        return 0
    return int(head) if len(head) <= 6 else -1


@lru_cache(maxsize=1024)
def _apply(state: _State, parameters: str) -> _State:
    fg, bg, old_flags = state
    flags = list(old_flags)
    codes = [_code(part) for part in parameters.split(";")]
    index = 0
    while index < len(codes):
        code = codes[index]
        index += 1
        if code == 0:
            fg, bg, flags = None, None, [False] * 6
        elif code in _FLAGS_ON:
            flags[_FLAGS_ON[code]] = True
        elif code in _FLAGS_OFF:
            for slot in _FLAGS_OFF[code]:
                flags[slot] = False
        elif 30 <= code <= 37 or 90 <= code <= 97:
            fg = (code - 30 if code < 90 else code - 82,)
        elif 40 <= code <= 47 or 100 <= code <= 107:
            bg = (code - 40 if code < 100 else code - 92,)
        elif code in (38, 48):
            colour, used = _colour(codes, index)
            index += used
            if colour is not None and code == 38:
                fg = colour
            elif colour is not None:
                bg = colour
        elif code == 39:
            fg = None
        elif code == 49:
            bg = None
    return fg, bg, tuple(flags)


@lru_cache(maxsize=512)
def _style(state: _State) -> Style | None:
    if state == _PLAIN:
        return None
    from rich.color import Color as RichColor
    from rich.style import Style as RichStyle

    def colour(value: _Colour) -> RichColor | None:
        if value is None:
            return None
        return RichColor.from_ansi(value[0]) if len(value) == 1 else RichColor.from_rgb(*value)

    fg, bg, (bold, dim, italic, underline, reverse, strike) = state
    rich = RichStyle(
        color=colour(fg), bgcolor=colour(bg), bold=bold or None, dim=dim or None, italic=italic or None,
        underline=underline or None, reverse=reverse or None, strike=strike or None,
    )
    return Style.from_rich_style(rich)


def coloured_content(text: str) -> Content:
    """The text as styled content (text without escapes as it is)."""
    if "\x1b" not in text:
        return Content(plain_text(text))
    safe = safe_colours(text)
    parts: list[str] = []
    spans: list[Span] = []
    state, style, at, last = _PLAIN, None, 0, 0
    for match in _SGR.finditer(safe):
        if match.start() > last:
            piece = safe[last : match.start()]
            if style is not None:
                spans.append(Span(at, at + len(piece), style))
            parts.append(piece)
            at += len(piece)
        state = _apply(state, match.group()[2:-1])
        style = _style(state)
        last = match.end()
    piece = safe[last:]
    if piece and style is not None:
        spans.append(Span(at, at + len(piece), style))
    parts.append(piece)
    return Content("".join(parts), spans)


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
