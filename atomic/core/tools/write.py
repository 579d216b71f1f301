"""The `write` tool: create or replace a whole file, never leaving it half-written."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import write_atomic
from atomic.core.tools.base import FileChange, Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.file_locks import file_mutation_lock
from atomic.core.tools.path_utils import resolve_path


def write_preserving_mode(path: Path, data: bytes) -> None:
    """Atomically replace the file behind `path`, keeping its permission bits and any symlink.

    A rename onto a symlink would replace the link itself, so the write goes to the link's target.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_PROCESS_UMASK
    if target.is_dir():
        raise ToolError(f"Cannot write {path}: it is a directory")
    write_atomic(target, data, mode=mode)


# Frontends show a diff against the old text; past this size they get none (the write still happens).
_DIFF_SOURCE_LIMIT = 4 * 1024 * 1024


def _previous_text(path: Path) -> str | None:
    """The file's text before the write, when it is a readable text file of reasonable size."""
    try:
        if not path.is_file() or path.stat().st_size > _DIFF_SOURCE_LIMIT:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _read_umask() -> int:
    # os.umask can only be read by setting it; do it once at import, before worker threads exist.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_PROCESS_UMASK = _read_umask()


class WriteTool(Tool):
    name = "write"
    label = "write"
    description = (
        "Write content to a file, replacing it completely if it exists and creating it (and any missing "
        "parent folders) if it does not. Use it for new files or full rewrites; prefer edit for changing "
        "part of an existing file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Path of the file to write (relative to the working directory, or absolute)"},
            "content": {"type": "string", "description": "The complete new content of the file"},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    prompt_snippet = "Create or overwrite files"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raw_path: str = args["path"]
        content: str = args["content"]
        path = resolve_path(raw_path, ctx.cwd)
        if ctx.sandbox is not None and (refused := ctx.sandbox.write_refusal(path)):
            raise ToolError(refused)
        data = content.encode("utf-8")
        editor = ctx.editor_for(path)
        if editor is not None:
            async with file_mutation_lock(path):
                try:
                    previous: str | None = await editor.read_text(path)
                except ToolError:
                    previous = None  # a new file
                await editor.write_text(path, content)
            output = ToolOutput.text(f"Successfully wrote {len(data)} bytes to {raw_path}")
            output.file_change = FileChange(path=path.absolute(), old_text=previous, new_text=content)
            return output
        async with file_mutation_lock(path):
            try:
                old_text = await asyncio.to_thread(_previous_text, path)
                await asyncio.to_thread(write_preserving_mode, path, data)
            except ToolError:
                raise
            except OSError as exc:
                raise ToolError(f"Could not write {raw_path}: {exc.strerror or exc}") from None
        output = ToolOutput.text(f"Successfully wrote {len(data)} bytes to {raw_path}")
        output.file_change = FileChange(path=path.absolute(), old_text=old_text, new_text=content)
        return output
