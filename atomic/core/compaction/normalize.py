"""Turn untrusted deletion records into validated, protection-respecting line ranges.

All line numbers are 1-based and ranges are inclusive `(start, end)` tuples, matching what the
planner sees and writes.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Sequence

LineRange = tuple[int, int]

KEEP_CONTEXT_OPEN = "<keepcontext>"
KEEP_CONTEXT_CLOSE = "</keepcontext>"
ROLE_HEADERS: tuple[str, ...] = (
    "[User]: ",
    "[Assistant thinking]: ",
    "[Assistant]: ",
    "[Assistant tool calls]: ",
    "[Tool result]: ",
)


def role_header_of(line: str) -> str | None:
    for header in ROLE_HEADERS:
        if line.startswith(header):
            return header
    return None


def _tag_of(line: str) -> str:
    """The line as a potential whole-line tag: role header removed, whitespace and case ignored."""
    header = role_header_of(line)
    body = line[len(header) :] if header else line
    return body.strip().lower()


def keep_context_indices(lines: Sequence[str], eligible: Sequence[bool]) -> set[int]:
    """0-based indices of lines inside `<keepContext>` ... `</keepContext>` blocks, tags included.

    Tags count only as whole lines (an optional leading role header is allowed, since a message
    that starts with the tag serializes as `[User]: <keepContext>`). Only `eligible` lines (user or
    assistant text) can open or continue a block; an ineligible line or the end of the sequence
    ends an unclosed block, so one stray opening tag cannot freeze everything after it. A closing
    tag without an opener is ordinary text.
    """
    protected: set[int] = set()
    inside = False
    for index, line in enumerate(lines):
        if not eligible[index]:
            inside = False
            continue
        tag = _tag_of(line)
        if inside:
            protected.add(index)
            if tag == KEEP_CONTEXT_CLOSE:
                inside = False
        elif tag == KEEP_CONTEXT_OPEN:
            protected.add(index)
            inside = True
    return protected


def normalize_ranges(
    raw: Iterable[LineRange], total: int, protected: Collection[int] = ()
) -> list[LineRange]:
    """Swap reversed ranges, clamp to [1, total], sort, merge overlapping and adjacent ranges,
    then split them around protected lines. The result is sorted, disjoint, non-adjacent except
    where a protected line sits between two fragments, and never touches a protected line."""
    if total <= 0:
        return []
    clamped: list[LineRange] = []
    for start, end in raw:
        if start > end:
            start, end = end, start
        start = max(1, start)
        end = min(total, end)
        if start <= end:
            clamped.append((start, end))
    clamped.sort()

    merged: list[LineRange] = []
    for start, end in clamped:
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))

    guarded = sorted(set(protected))
    result: list[LineRange] = []
    for start, end in merged:
        cursor = start
        # Walk only the protected lines inside this range (bisect keeps large transcripts cheap).
        position = bisect.bisect_left(guarded, start)
        while position < len(guarded) and guarded[position] <= end:
            line = guarded[position]
            if cursor < line:
                result.append((cursor, line - 1))
            cursor = line + 1
            position += 1
        if cursor <= end:
            result.append((cursor, end))
    return result


def collapse_to_ranges(lines: Iterable[int]) -> list[LineRange]:
    """Consecutive line numbers collapsed into inclusive ranges (for listing protected lines)."""
    ranges: list[LineRange] = []
    for line in sorted(set(lines)):
        if ranges and line == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], line)
        else:
            ranges.append((line, line))
    return ranges
