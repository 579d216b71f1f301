"""Parse the planner's answer into raw deletion records.

The planner is asked for bare `start,end` lines. Anything else (prose, code fences, bullets,
`start-end`) is ignored rather than guessed at: a misread range would delete the wrong lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from atomic.core.compaction.errors import CompactionError
from atomic.core.compaction.normalize import LineRange

# Bounded digit runs: a runaway number is garbage, and int() refuses very long digit strings.
_RECORD = re.compile(r"^\s*(\d{1,12})\s*,\s*(\d{1,12})\s*$")


@dataclass(frozen=True)
class PlannerReply:
    """What a `complete` callable may return instead of a bare string.

    `truncated` is True when the model stopped because of its output length limit; the last,
    unterminated line is then dropped even if it looks like a record (`12,3` may be the first
    half of `12,345`).
    """

    text: str
    truncated: bool = False


def parse_deletion_records(answer: str, *, truncated: bool = False) -> list[LineRange]:
    """Every complete `start,end` record in the answer, in the planner's order.

    Raises CompactionError when the answer holds no record at all.
    """
    lines = answer.split("\n")
    # A cut-off answer ends in a fragment without a newline: only newline-terminated lines are
    # known to be complete.
    if truncated and not answer.endswith("\n"):
        lines = lines[:-1]
    records: list[LineRange] = []
    for line in lines:
        match = _RECORD.match(line.rstrip("\r"))
        if match:
            records.append((int(match.group(1)), int(match.group(2))))
    if not records:
        preview = answer.strip()[:200] or "(empty answer)"
        raise CompactionError(
            "Compaction planner returned no usable deletion record (expected lines like `12,40`); "
            f"answer began: {preview}"
        )
    return records
