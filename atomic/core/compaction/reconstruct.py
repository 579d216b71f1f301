"""Rebuild the compacted text mechanically from validated deletion ranges.

Kept lines are copied byte for byte, in order. Each maximal deleted span becomes one
`(filtered N lines)` marker where N counts ORIGINAL lines: a marker left by an earlier compaction
that ends up inside (or right next to) a new span contributes its own count instead of 1.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from atomic.core.compaction.normalize import LineRange

MARKER_PATTERN = re.compile(r"^\(filtered (\d{1,12}) lines\)$")


def filtered_marker(count: int) -> str:
    # Always "lines", even for 1: the fixed grammar is what lets a later compaction re-read it.
    return f"(filtered {count} lines)"


def find_prior_markers(lines: Sequence[str]) -> dict[int, int]:
    """1-based line number -> count for every marker line left by an earlier compaction."""
    markers: dict[int, int] = {}
    for index, line in enumerate(lines):
        match = MARKER_PATTERN.match(line)
        if match:
            markers[index + 1] = int(match.group(1))
    return markers


@dataclass(frozen=True)
class ReconstructionStats:
    lines_before: int
    lines_deleted: int
    lines_kept: int
    range_count: int
    # Lines of the ORIGINAL transcript the markers stand for (prior markers expanded).
    original_lines_filtered: int


@dataclass(frozen=True)
class Reconstruction:
    text: str
    # The spans actually replaced by markers (after folding neighbouring prior markers).
    ranges: list[LineRange]
    stats: ReconstructionStats


def _deleted_mask(
    total: int, ranges: Iterable[LineRange], prior_markers: Mapping[int, int], protected: Collection[int]
) -> list[bool]:
    deleted = [False] * (total + 2)  # 1-based with a sentinel on each side
    for start, end in ranges:
        for line in range(max(1, start), min(total, end) + 1):
            deleted[line] = True
    guarded = set(protected)
    for line in guarded:
        if 1 <= line <= total:
            deleted[line] = False
    # An old marker touching a new span is folded into it, so the result never shows two markers
    # in a row for one gap. A run of old markers folds as a chain: an ascending pass carries a
    # span forward through the run, a descending pass carries it backward.
    candidates = sorted(line for line in prior_markers if 1 <= line <= total and line not in guarded)
    for line in candidates:
        if deleted[line - 1]:
            deleted[line] = True
    for line in reversed(candidates):
        if deleted[line + 1]:
            deleted[line] = True
    return deleted


def reconstruct(
    lines: Sequence[str],
    ranges: Iterable[LineRange],
    *,
    prior_markers: Mapping[int, int] | None = None,
    protected: Collection[int] = (),
) -> Reconstruction:
    """Apply normalized ranges to `lines` (protected lines are never removed, defensively)."""
    markers = prior_markers or {}
    total = len(lines)
    deleted = _deleted_mask(total, ranges, markers, protected)

    output: list[str] = []
    spans: list[LineRange] = []
    filtered_total = 0
    line = 1
    while line <= total:
        if not deleted[line]:
            output.append(lines[line - 1])
            line += 1
            continue
        start = line
        count = 0
        while line <= total and deleted[line]:
            count += markers.get(line, 1)
            line += 1
        spans.append((start, line - 1))
        output.append(filtered_marker(count))
        filtered_total += count

    lines_deleted = sum(end - start + 1 for start, end in spans)
    return Reconstruction(
        text="\n".join(output),
        ranges=spans,
        stats=ReconstructionStats(
            lines_before=total,
            lines_deleted=lines_deleted,
            lines_kept=total - lines_deleted,
            range_count=len(spans),
            original_lines_filtered=filtered_total,
        ),
    )
