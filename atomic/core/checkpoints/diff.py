"""What differs between two states of a project: per-file status and a unified diff of text files."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass

from atomic.core.checkpoints.records import FileStatus
from atomic.core.checkpoints.store import CheckpointStore, DamagedCopy, Manifest

# Bigger files are listed but not diffed (difflib's cost grows with the square of the lines).
MAX_DIFF_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class FileDifference:
    path: str
    status: FileStatus


def changes(old: Manifest, new: Manifest) -> list[FileDifference]:
    """Paths whose content or mode differ from `old` to `new`, sorted; paths skipped on either side
    are not compared."""
    hands_off = old.skipped.keys() | new.skipped.keys()
    out: list[FileDifference] = []
    for path, before in old.files.items():
        if path in hands_off:
            continue
        after = new.files.get(path)
        if after is None:
            out.append(FileDifference(path, "deleted"))
        elif after.digest != before.digest or after.mode != before.mode:
            out.append(FileDifference(path, "modified"))
    out.extend(FileDifference(p, "added") for p in new.files if p not in old.files and p not in hands_off)
    out.sort(key=lambda d: d.path)
    return out


def _text(data: bytes | None) -> list[str] | None:
    if data is None:
        return []
    if len(data) > MAX_DIFF_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def unified_diff(root: str, store: CheckpointStore, old: Manifest, differences: list[FileDifference]) -> str:
    """The diff from `old` (stored copies) to the files on disk under `root`; text files only."""
    parts: list[str] = []
    for difference in differences:
        path = difference.path
        before: bytes | None = None
        after: bytes | None = None
        try:
            if difference.status != "added":
                before = store.read_object(old.files[path].digest)
            if difference.status != "deleted":
                with open(os.path.join(root, path), "rb") as handle:
                    after = handle.read()
        except (OSError, DamagedCopy):
            continue
        old_lines, new_lines = _text(before), _text(after)
        if old_lines is None or new_lines is None:
            continue
        lines = difflib.unified_diff(
            old_lines,
            new_lines,
            fromfile="/dev/null" if before is None else f"a/{path}",
            tofile="/dev/null" if after is None else f"b/{path}",
        )
        for line in lines:
            parts.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(parts)
