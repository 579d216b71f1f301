"""The `grep` tool: regex (or literal) search of file contents with ripgrep, or a Python fallback.

ripgrep comes from the `ripgrep` PyPI package, installed next to the Python interpreter. Without it,
the same search runs in Python over a .gitignore-aware walk (slower, Python regex syntax).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.find import parse_limit
from atomic.core.tools.glob_match import glob_matches
from atomic.core.tools.path_utils import resolve_path
from atomic.core.tools.ripgrep import find_ripgrep
from atomic.core.tools.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
)

DEFAULT_GREP_LIMIT = 100
_BINARY_SNIFF_BYTES = 8192


@dataclass(frozen=True)
class GrepOptions:
    pattern: str
    root: Path
    glob: str | None
    ignore_case: bool
    literal: bool
    limit: int


@dataclass(frozen=True)
class Match:
    path: str  # absolute
    line_number: int


def _event_path(data: dict[str, Any]) -> str | None:
    raw = data.get("path") or {}
    if "text" in raw:
        return str(raw["text"])
    if "bytes" in raw:
        return os.fsdecode(base64.b64decode(raw["bytes"]))
    return None


async def search_with_ripgrep(rg: str, options: GrepOptions) -> tuple[list[Match], bool]:
    """Matches sorted by file (line order kept) and whether the limit stopped the search early."""
    argv = [rg, "--json", "--line-number", "--color=never", "--hidden", "--no-require-git", "--glob", "!.git"]
    if options.ignore_case:
        argv.append("--ignore-case")
    if options.literal:
        argv.append("--fixed-strings")
    if options.glob:
        argv += ["--glob", options.glob]
    argv += ["--regexp", options.pattern, "--", str(options.root)]

    process = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.create_task(process.stderr.read())
    matches: list[Match] = []
    limit_reached = False
    stdout_done = False
    try:
        while True:
            line = await process.stdout.readline()
            if not line:
                stdout_done = True
                break
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if event.get("type") != "match":
                    continue
                data = event.get("data") or {}
                path = _event_path(data)
                if path is None or data.get("line_number") is None:
                    continue
                matches.append(Match(path, int(data["line_number"])))
                if len(matches) >= options.limit:
                    limit_reached = True
                    break
    finally:
        # Kill only a search we stopped reading (limit reached, or cancelled). At EOF rg is finishing on its
        # own and may just not be reaped yet: killing it then turned a clean "no match" into an error.
        if process.returncode is None and (limit_reached or not stdout_done):
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        await process.wait()
        stderr = (await stderr_task).decode("utf-8", errors="replace").strip()

    if process.returncode not in (0, 1) and not limit_reached and not matches:
        raise ToolError(stderr or f"ripgrep exited with code {process.returncode}")
    # rg searches files on several threads, so files arrive in any order; the same search must show the
    # same result every time. The sort is stable: lines within a file stay in order.
    matches.sort(key=lambda match: match.path)
    return matches, limit_reached


def _is_binary(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return b"\x00" in handle.read(_BINARY_SNIFF_BYTES)
    except OSError:
        return True


def search_with_python(options: GrepOptions) -> tuple[list[Match], bool]:
    flags = re.IGNORECASE if options.ignore_case else 0
    source = re.escape(options.pattern) if options.literal else options.pattern
    try:
        regex = re.compile(source, flags)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression: {exc}") from None

    if options.root.is_file():
        candidates = [str(options.root)]
    else:
        # Imported here: the fallback walk is rarely needed and start-up should not pay for it.
        from atomic.core.tools.ignore_walk import walk

        candidates = [
            entry.path
            for entry in walk(options.root)
            if options.glob is None or _glob_allows(options.glob, entry.relative)
        ]
    matches: list[Match] = []
    for path in candidates:
        if _is_binary(path):
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for number, line in enumerate(handle, start=1):
                    if regex.search(line.rstrip("\n")):
                        matches.append(Match(path, number))
                        if len(matches) >= options.limit:
                            return matches, True
        except OSError:
            continue
    return matches, False


def _glob_allows(glob: str, relative: str) -> bool:
    if glob.startswith("!"):
        return not glob_matches(glob[1:], relative)
    return glob_matches(glob, relative)


def format_matches(matches: list[Match], root: Path, context: int) -> tuple[list[str], bool]:
    """`rel/path:N: text` for matches, `rel/path-N- text` for context; also whether a line was cut."""
    root_is_dir = root.is_dir()
    cache: dict[str, list[str]] = {}
    any_cut = False

    def display(path: str) -> str:
        if root_is_dir:
            relative = os.path.relpath(path, root)
            if not relative.startswith(".."):
                return relative.replace(os.sep, "/")
        return os.path.basename(path)

    def lines_of(path: str) -> list[str]:
        if path not in cache:
            try:
                with open(path, encoding="utf-8", errors="replace", newline="") as handle:
                    cache[path] = handle.read().split("\n")
            except OSError:
                cache[path] = []
        return cache[path]

    out: list[str] = []
    for match in matches:
        name = display(match.path)
        lines = lines_of(match.path)
        if not lines:
            out.append(f"{name}:{match.line_number}: (unable to read file)")
            continue
        first = max(1, match.line_number - context)
        last = min(len(lines), match.line_number + context)
        for number in range(first, last + 1):
            text, cut = truncate_line(lines[number - 1].replace("\r", ""), GREP_MAX_LINE_LENGTH)
            any_cut = any_cut or cut
            separator = ":" if number == match.line_number else "-"
            out.append(f"{name}{separator}{number}{separator} {text}")
    return out, any_cut


class GrepTool(Tool):
    name = "grep"
    read_only = True
    label = "grep"
    description = (
        "Search file contents for a regular expression (or a literal string with literal=true). "
        "Hidden files are searched; .gitignore'd files and .git are skipped. Results are lines like "
        "'path:line: text' (context lines use 'path-line- text'), with paths relative to the searched "
        f"folder. At most {DEFAULT_GREP_LIMIT} matches by default (change with limit); lines longer than "
        f"{GREP_MAX_LINE_LENGTH} characters are cut and output stops at {DEFAULT_MAX_BYTES // 1024}KB. "
        "Narrow the search with path and glob (e.g. '*.py')."
    )
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {"type": "string", "minLength": 1, "description": "Regular expression (or literal text) to search for"},
            "path": {"type": "string", "description": "File or folder to search (default: the working directory)"},
            "glob": {"type": "string", "description": "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.py'"},
            "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default false)"},
            "literal": {"type": "boolean", "description": "Treat pattern as literal text, not a regex (default false)"},
            "context": {"type": "number", "description": "Lines of context before and after each match (default 0)"},
            "limit": {"type": "number", "description": f"Maximum number of matches (default {DEFAULT_GREP_LIMIT})"},
        },
        "required": ["pattern"],
        "additionalProperties": False,
    }
    prompt_snippet = "Search file contents for patterns (respects .gitignore)"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        options = GrepOptions(
            pattern=args["pattern"],
            root=resolve_path(args.get("path") or ".", ctx.cwd),
            glob=args.get("glob") or None,
            ignore_case=args.get("ignoreCase", False),
            literal=args.get("literal", False),
            limit=parse_limit(args, DEFAULT_GREP_LIMIT),
        )
        context = max(0, int(args.get("context") or 0))
        if not options.root.exists():
            raise ToolError(f"Path not found: {options.root}")
        refused = ctx.path_guard(options.root)
        if refused is not None:
            raise ToolError(refused)

        rg = find_ripgrep()
        if rg is not None:
            matches, limit_reached = await search_with_ripgrep(rg, options)
        else:
            matches, limit_reached = await asyncio.to_thread(search_with_python, options)
        matches = [m for m in matches if ctx.path_guard(Path(m.path)) is None]
        if not matches:
            return ToolOutput.text("No matches found")

        lines, lines_cut = await asyncio.to_thread(format_matches, matches, options.root, context)
        truncation = truncate_head("\n".join(lines), max_lines=10**12)
        notices: list[str] = []
        details: dict[str, Any] = {}
        if limit_reached:
            notices.append(
                f"{options.limit} matches limit reached. Use limit={options.limit * 2} for more, or refine pattern"
            )
            details["matchLimitReached"] = options.limit
        if truncation.truncated:
            notices.append(f"{format_size(DEFAULT_MAX_BYTES)} limit reached")
            details["truncation"] = truncation.to_wire()
        if lines_cut:
            notices.append(f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines")
            details["linesTruncated"] = True
        text = truncation.content
        if notices:
            text += f"\n\n[{'. '.join(notices)}]"
        return ToolOutput.text(text, details or None)
