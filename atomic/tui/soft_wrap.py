"""Which line breaks of rendered text the renderer made (soft wraps), so a copy can undo them.

A reply is shown wrapped to the terminal's width; copied, a command, a URL or a paragraph must paste
back as the one line it was written as. The same text rendered at a width nothing wraps at gives the
lines as written; walking both, a shown line that is only the start of a written line ends in a soft
break. Indents the renderer adds to continuation lines (list items) are ignored by the comparison.
"""

from __future__ import annotations

# A width lines are not wrapped at (longer lines stay wrapped: a code block pads every line to it).
WIDE = 2_000


def _words(line: str) -> str:
    return " ".join(line.split())


def soft_breaks(shown: list[str], written: list[str]) -> list[str | None]:
    """For each break between two shown lines: None for a real newline, else what joins them (" " where
    the wrap replaced a space, "" where it cut a long word). Where the two stop agreeing (a table laid
    out differently when wide), the rest are kept as real newlines."""
    joins: list[str | None] = [None] * max(0, len(shown) - 1)
    at = 0  # the written line being matched
    y = 0
    while y < len(shown) and at < len(written):
        target = _words(written[at])
        acc = _words(shown[y])
        while acc != target and y + 1 < len(shown):
            following = _words(shown[y + 1])
            if not following:
                break
            rest = target[len(acc) :] if target.startswith(acc) else None
            if rest is None:
                return joins  # no longer aligned: keep every remaining newline
            separator = " " if rest.startswith(" ") else ""
            if not (target.startswith(acc + separator + following) or (acc + separator + following) == target):
                return joins
            joins[y] = separator
            acc = acc + separator + following
            y += 1
        if acc != target:
            return joins
        at += 1
        y += 1
    return joins


def join_soft_breaks(extracted: str, first_line: int, joins: list[str | None]) -> str:
    """`extracted` starts on shown line `first_line`; its newlines at soft breaks become their joins."""
    parts = extracted.split("\n")
    out = parts[0]
    for index, part in enumerate(parts[1:]):
        line = first_line + index
        join = joins[line] if 0 <= line < len(joins) else None
        out += ("\n" if join is None else join) + (part.lstrip() if join is not None else part)
    return out
