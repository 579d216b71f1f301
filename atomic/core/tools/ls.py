"""The `ls` tool: one folder's entries, folders marked with `/`."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.find import parse_limit
from atomic.core.tools.path_utils import resolve_path
from atomic.core.tools.truncate import DEFAULT_MAX_BYTES, listing_text

DEFAULT_LS_LIMIT = 500


def list_entries(folder: Path, limit: int) -> tuple[list[str], bool]:
    """Entries sorted case-insensitively (dotfiles included), and whether the limit cut the list."""
    names = sorted(os.listdir(folder), key=lambda name: (name.lower(), name))
    entries: list[str] = []
    for name in names:
        if len(entries) >= limit:
            return entries, True
        full = folder / name
        try:
            # Follow symlinks here: a link to a folder is listed as a folder, like ls -F would.
            is_dir = full.is_dir()
        except OSError:
            continue
        entries.append(name + "/" if is_dir else name)
    return entries, False


class LsTool(Tool):
    name = "ls"
    read_only = True
    label = "ls"
    description = (
        "List the entries of a folder, sorted alphabetically, with '/' after folder names. Hidden "
        f"entries are included. Returns at most {DEFAULT_LS_LIMIT} entries by default (change with limit); "
        f"output stops at {DEFAULT_MAX_BYTES // 1024}KB."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Folder to list (default: the working directory)"},
            "limit": {"type": "number", "description": f"Maximum number of entries (default {DEFAULT_LS_LIMIT})"},
        },
        "additionalProperties": False,
    }
    prompt_snippet = "List directory contents"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        limit = parse_limit(args, DEFAULT_LS_LIMIT)
        folder = resolve_path(args.get("path") or ".", ctx.cwd)
        if not folder.exists():
            raise ToolError(f"Path not found: {folder}")
        if not folder.is_dir():
            raise ToolError(f"Not a directory: {folder}")
        try:
            entries, limit_reached = await asyncio.to_thread(list_entries, folder, limit)
            entries = [e for e in entries if ctx.path_guard(folder / e.rstrip("/")) is None]
        except PermissionError:
            raise ToolError(f"Permission denied: {folder}") from None
        if not entries:
            return ToolOutput.text("(empty directory)")

        text, details = listing_text(
            entries,
            limit_notice=f"{limit} entries limit reached. Use limit={limit * 2} for more" if limit_reached else None,
            limit_detail=("entryLimitReached", limit) if limit_reached else None,
        )
        return ToolOutput.text(text, details)
