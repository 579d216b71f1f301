"""The `read` tool: text files with head truncation and paging, images as attachments."""

from __future__ import annotations

import asyncio
import base64
import os
import stat
from pathlib import Path
from typing import Any

from atomic.core.messages import ImageContent, TextContent
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.path_utils import resolve_read_path
from atomic.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    utf8_len,
)

# Providers reject larger images; without an image library we cannot shrink them, so they are left out.
MAX_IMAGE_BYTES = int(4.5 * 1024 * 1024)

IMAGE_NOT_SUPPORTED_NOTE = (
    "[Current model does not support images. The image will be omitted from this request.]"
)


def detect_image_mime(head: bytes) -> str | None:
    """The image MIME type from the file's first bytes (magic numbers), or None for anything else."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if len(head) >= 12 and head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _image_output(path: Path, data: bytes, mime: str, supports_images: bool) -> ToolOutput:
    text = f"Read image file [{mime}]"
    if not supports_images:
        return ToolOutput.text(f"{text}\n{IMAGE_NOT_SUPPORTED_NOTE}")
    if len(data) > MAX_IMAGE_BYTES:
        return ToolOutput.text(
            f"{text}\n[Image omitted: {format_size(len(data))} is over the {format_size(MAX_IMAGE_BYTES)} "
            f"limit for attachments. Inspect it with bash instead: {path}]"
        )
    encoded = base64.b64encode(data).decode("ascii")
    return ToolOutput(content=[TextContent(text=text), ImageContent(data=encoded, mime_type=mime)])


def format_text_read(text: str, display_path: str, offset: int | None, limit: int | None) -> ToolOutput:
    """Select lines `offset..offset+limit` (1-based) and add the paging notices the model acts on."""
    all_lines = text.split("\n")
    total = len(all_lines)
    start = offset - 1 if offset else 0
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")

    user_limited: int | None = None
    if limit is not None:
        end = min(start + limit, total)
        selected = "\n".join(all_lines[start:end])
        user_limited = end - start
    else:
        selected = "\n".join(all_lines[start:])

    first_display = start + 1
    truncation = truncate_head(selected)
    if truncation.first_line_exceeds_limit:
        size = format_size(utf8_len(all_lines[start]))
        message = (
            f"[Line {first_display} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first_display}p' {display_path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return ToolOutput.text(message, {"truncation": truncation.to_wire()})
    if truncation.truncated:
        last_display = first_display + truncation.output_lines - 1
        limit_note = "" if truncation.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        notice = (
            f"\n\n[Showing lines {first_display}-{last_display} of {total}{limit_note}. "
            f"Use offset={last_display + 1} to continue.]"
        )
        return ToolOutput.text(truncation.content + notice, {"truncation": truncation.to_wire()})
    if user_limited is not None and start + user_limited < total:
        remaining = total - (start + user_limited)
        notice = f"\n\n[{remaining} more lines in file. Use offset={start + user_limited + 1} to continue.]"
        return ToolOutput.text(truncation.content + notice)
    return ToolOutput.text(truncation.content)


class ReadTool(Tool):
    name = "read"
    read_only = True
    label = "read"
    description = (
        "Read a file from the local filesystem. Text files come back as text; images (PNG, JPEG, GIF, "
        f"WebP) are attached so you can see them. Text output stops after {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB, whichever comes first, with a note telling you which offset to "
        "continue from. Use offset (1-based line number) and limit to read a large file in parts; keep "
        "reading with the suggested offset when you need the whole file."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1, "description": "Path of the file to read (relative to the working directory, or absolute)"},
            "offset": {"type": "integer", "minimum": 1, "description": "Line number to start reading from (1-based)"},
            "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read"},
        },
        "required": ["path"],
        "additionalProperties": False,
    }
    prompt_snippet = "Read file contents (text, or images as attachments)"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        raw_path: str = args["path"]
        # The schema lets 3.0 through as an integer.
        offset = int(args["offset"]) if "offset" in args else None
        limit = int(args["limit"]) if "limit" in args else None
        path = resolve_read_path(raw_path, ctx.cwd)
        refused = ctx.path_guard(path)
        if refused is not None:
            raise ToolError(refused)
        editor = ctx.editor_for(path)
        if editor is not None and not _looks_like_image(path):
            return format_text_read(await editor.read_text(path), raw_path, offset, limit)
        data, cut = await asyncio.to_thread(_read_bytes, path)

        mime = detect_image_mime(data[:16])
        if mime is not None and not cut:
            return _image_output(path, data, mime, ctx.supports_images)
        output = format_text_read(data.decode("utf-8", errors="replace"), raw_path, offset, limit)
        if cut:
            output.content.append(TextContent(text=(
                f"\n[Only the first {format_size(MAX_READ_BYTES)} of the file were read. "
                f"Use bash (e.g. tail -c or sed -n) for the rest of {raw_path}]"
            )))
        return output


_IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp"})


def _looks_like_image(path: Path) -> bool:
    # Images are attached from disk; an editor's text view of them would be useless.
    return path.suffix.lower() in _IMAGE_SUFFIXES


# Never more than this is read from one file: a device or a huge file must not exhaust memory.
MAX_READ_BYTES = 16 * 1024 * 1024


def _read_bytes(path: Path) -> tuple[bytes, bool]:
    """The file's first MAX_READ_BYTES bytes and whether it holds more. Only regular files are read:
    a device (/dev/zero), a pipe (/dev/stdin) or a socket would block or never end."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ToolError(f"File not found: {path}") from None
    except IsADirectoryError:
        raise ToolError(f"Cannot read {path}: it is a directory. Use ls to list its contents.") from None
    except PermissionError:
        raise ToolError(f"Permission denied: {path}") from None
    except OSError as exc:
        raise ToolError(f"Could not read {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ToolError(f"Cannot read {path}: it is a directory. Use ls to list its contents.")
        if not stat.S_ISREG(mode):
            raise ToolError(f"Cannot read {path}: it is not a regular file (a device, pipe or socket)")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        remaining = MAX_READ_BYTES + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise ToolError(f"Could not read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_READ_BYTES:
        return data[:MAX_READ_BYTES], True
    return data, False

