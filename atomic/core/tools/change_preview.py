"""What a write or edit call would do, worked out before it runs, for the person who approves it.

The approval card shows the resolved path and, instead of the tool's JSON arguments, the new file's
content (write) or the diff of the change (edit, in both argument forms). Nothing is written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atomic.core.tools.edit import EditTool, prepare_edits, text_edits
from atomic.core.tools.edit_diff import EditApplyError, apply_edits, compute_diff, normalize_to_lf, split_bom
from atomic.core.tools.path_utils import resolve_path
from atomic.core.tools.schema_check import argument_errors, invalid_arguments_text

# An approval preview reads the file on the UI's loop: past this size it says so instead.
PREVIEW_MAX_BYTES = 2_000_000


@dataclass(frozen=True)
class ChangePreview:
    path: Path  # absolute
    exists: bool
    new_text: str | None = None  # write: the content it would write
    diff: str | None = None  # edit: the compact diff (`-NN`, `+NN`, ` NN` lines)
    problem: str | None = None  # why no diff could be made (the edit would fail, the file is unreadable)


def preview_change(tool_name: str, args: dict[str, Any], cwd: Path) -> ChangePreview | None:
    """The preview of a `write` or `edit` call; None for any other tool or without a path."""
    raw_path = args.get("path")
    if tool_name not in ("write", "edit") or not isinstance(raw_path, str) or not raw_path:
        return None
    path = resolve_path(raw_path, cwd)
    exists = path.is_file()
    if tool_name == "write":
        content = args.get("content")
        return ChangePreview(path, exists, new_text=content if isinstance(content, str) else "")
    args = prepare_edits(args)
    errors = argument_errors(EditTool.parameters, args)
    if errors:
        return ChangePreview(path, exists, problem=invalid_arguments_text("edit", errors))
    edits = text_edits(args)
    old = _read(path)
    if old is None:
        # The file cannot be read: still show what would be replaced by what.
        pairs = [compute_diff(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text), 0).diff for e in edits]
        problem = "the file does not exist" if not exists else "the file could not be read as text"
        return ChangePreview(path, exists, diff="\n ...\n".join(pairs), problem=problem)
    _bom, body = split_bom(old)
    try:
        base, updated = apply_edits(normalize_to_lf(body), edits, raw_path)
    except EditApplyError as exc:
        pairs = [compute_diff(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text), 0).diff for e in edits]
        return ChangePreview(path, exists, diff="\n ...\n".join(pairs), problem=str(exc))
    return ChangePreview(path, exists, diff=compute_diff(base, updated, 3).diff)


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > PREVIEW_MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
