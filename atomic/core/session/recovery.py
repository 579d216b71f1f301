"""Opening a damaged session file: what was wrong with it, and rewriting it after keeping a backup.

A crash, a full disk or another program can leave a session file whose first line is not a session
header, with torn or non-JSON lines anywhere, or with entries whose parent is missing. The store opens
what it can read (see `SessionStore.open`); this module holds the account of what it skipped or
mended (`Recovery`, told to the user once), the header made up for a file that lost its own, and the
repair: the damaged bytes are kept beside the file first, then the file is rewritten whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from atomic.core.ids import file_stamp, iso_now, uuid7
from atomic.core.session.file_writes import create_whole, keep_backup

# Session files are named `<stamp>_<session id>.jsonl`; a file that lost its header keeps its id.
ID_IN_NAME = re.compile(r"_([0-9a-fA-F-]{8,})$")


@dataclass
class Damage:
    """What opening a file found wrong, filled in while its lines are read."""

    header_made_up: bool = False
    skipped_lines: list[int] = field(default_factory=list)
    torn_last_line: bool = False
    relinked: int = 0
    duplicates: int = 0

    def __bool__(self) -> bool:
        return self.header_made_up or bool(self.skipped_lines) or bool(self.relinked) or bool(self.duplicates)


@dataclass(frozen=True)
class Recovery:
    """A damaged session file that was opened anyway: what was skipped or mended, and the backup."""

    file: Path
    skipped_lines: tuple[int, ...]
    torn_last_line: bool
    header_made_up: bool
    relinked: int
    duplicates: int
    backup: Path | None
    # Why the file could not be rewritten (the session then goes on appending to it as it was).
    repair_error: str | None = None

    def summary(self) -> str:
        """One sentence for the user: what was skipped and where the damaged file was kept."""
        parts: list[str] = []
        if self.skipped_lines:
            shown = ", ".join(str(n) for n in self.skipped_lines[:5])
            more = f" and {len(self.skipped_lines) - 5} more" if len(self.skipped_lines) > 5 else ""
            noun = "line" if len(self.skipped_lines) == 1 else "lines"
            torn = ", the last one torn" if self.torn_last_line else ""
            parts.append(f"skipped {len(self.skipped_lines)} unreadable {noun} ({shown}{more}{torn})")
        if self.header_made_up:
            parts.append("made a new session header (the first line was not one)")
        if self.relinked:
            parts.append(f"attached {self.relinked} entries whose parent was unreadable to the entry before it")
        if self.duplicates:
            parts.append(f"dropped {self.duplicates} entries with a repeated id")
        where = f"the damaged file is kept as {self.backup}" if self.backup is not None else ""
        if self.repair_error is not None:
            where = f"it could not be rewritten ({self.repair_error})" + (f", {where}" if where else "")
        return f"Session file {self.file} was damaged: {'; '.join(parts)}; {where}."


def made_up_header(path: Path, cwd: Path | None, first_timestamp: str | None, version: int) -> dict[str, Any]:
    """A session header for a file that has none: the id from the file name when it holds one."""
    match = ID_IN_NAME.search(path.stem)
    timestamp = first_timestamp
    if not timestamp:
        try:
            timestamp = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat(timespec="milliseconds")
            timestamp = timestamp.replace("+00:00", "Z")
        except OSError:
            timestamp = iso_now()
    return {
        "type": "session",
        "version": version,
        "id": match.group(1) if match else uuid7(),
        "timestamp": timestamp,
        "cwd": str(cwd if cwd is not None else Path.cwd()),
    }


def repair(path: Path, original: bytes, lines: list[str], damage: Damage) -> Recovery:
    """Keep `original` beside `path`, then rewrite `path` as `lines` (header first)."""
    backup: Path | None = None
    error: str | None = None
    try:
        backup = keep_backup(path, original, file_stamp(iso_now()))
        create_whole(path, ("\n".join(lines) + "\n").encode("utf-8"))
    except OSError as exc:
        error = exc.strerror or str(exc)
    return Recovery(
        file=path,
        skipped_lines=tuple(damage.skipped_lines),
        torn_last_line=damage.torn_last_line,
        header_made_up=damage.header_made_up,
        relinked=damage.relinked,
        duplicates=damage.duplicates,
        backup=backup,
        repair_error=error,
    )
