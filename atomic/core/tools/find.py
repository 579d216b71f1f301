"""The `find` tool: files (and folders) whose names match a glob, honouring .gitignore."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.glob_match import compile_glob
from atomic.core.tools.ignore_walk import walk
from atomic.core.tools.path_utils import resolve_path
from atomic.core.tools.truncate import DEFAULT_MAX_BYTES, listing_text

DEFAULT_FIND_LIMIT = 1000


def parse_limit(args: dict[str, Any], default: int) -> int:
    value = args.get("limit")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError("limit must be a number")
    return max(1, int(value))


def find_matches(root: Path, pattern: str, limit: int) -> tuple[list[str], bool]:
    """Up to `limit` relative paths (folders end in `/`), sorted, and whether more exist.

    Like fd: a pattern without `/` tests the name; with `/` it tests the path below the root at
    any depth (as if it started with `**/`).
    """
    full_path = "/" in pattern
    if full_path and not pattern.startswith("**"):
        pattern = "**/" + pattern.lstrip("/")
    regex = compile_glob(pattern)
    found: list[str] = []
    for entry in walk(root, include_dirs=True):
        subject = entry.relative if full_path else entry.relative.rsplit("/", 1)[-1]
        if regex.match(subject) is None:
            continue
        found.append(entry.relative + "/" if entry.is_dir else entry.relative)
        if len(found) > limit:
            break
    more = len(found) > limit
    return sorted(found[:limit]), more


class FindTool(Tool):
    name = "find"
    label = "find"
    description = (
        "Find files by glob pattern, such as '*.py', '**/*.test.ts' or 'src/**/config.{json,yaml}'. "
        "A pattern without '/' matches file names at any depth; one with '/' matches paths. Hidden "
        "files are included; files ignored by .gitignore and the .git folder are skipped. Returns "
        f"paths relative to the searched folder, sorted, at most {DEFAULT_FIND_LIMIT} by default "
        f"(change with limit), and output stops at {DEFAULT_MAX_BYTES // 1024}KB."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "description": "Glob pattern to match, e.g. '*.ts' or 'src/**/*.spec.ts'"},
            "path": {"type": "string", "description": "Folder to search in (default: the working directory)"},
            "limit": {"type": "number", "description": f"Maximum number of results (default {DEFAULT_FIND_LIMIT})"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    prompt_snippet = "Find files by glob pattern (respects .gitignore)"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        pattern = args.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise ToolError("pattern is required")
        limit = parse_limit(args, DEFAULT_FIND_LIMIT)
        raw_path = args.get("path") or "."
        root = resolve_path(str(raw_path), ctx.cwd)
        if not root.exists():
            raise ToolError(f"Path not found: {root}")
        if not root.is_dir():
            raise ToolError(f"Not a directory: {root}")

        paths, limit_reached = await asyncio.to_thread(find_matches, root, pattern, limit)
        if not paths:
            return ToolOutput.text("No files found matching pattern")

        text, details = listing_text(
            paths,
            limit_notice=f"{limit} results limit reached. Use limit={limit * 2} for more, or refine pattern" if limit_reached else None,
            limit_detail=("resultLimitReached", limit) if limit_reached else None,
        )
        return ToolOutput.text(text, details)
