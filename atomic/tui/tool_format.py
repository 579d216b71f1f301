"""What a tool card says: headers per tool, result text, abort marks, diff colours, code highlighting.

Pure functions (no widgets), so every rule here is tested without an app.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from textual.content import Content

# How an aborted tool result ends: the tool runner's "Operation aborted", or a tool that kept its output
# and says so on its last line.
_ABORT_MARK = re.compile(r"(?:^|\n)[ \t]*(?:\[?(?:operation|command|tool)\s+(?:was\s+)?aborted\]?\.?)[ \t]*$", re.IGNORECASE)


def command_lines(args: Any) -> list[str]:
    """Every line of a bash call's command (blank lines at both ends dropped, inner ones kept)."""
    if not isinstance(args, dict) or not isinstance(args.get("command"), str):
        return []
    return args["command"].strip("\n").rstrip().splitlines()


def _quoted(value: str, limit: int = 80) -> str:
    text = value if len(value) <= limit else value[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def _search_summary(args: dict[str, Any], extras: list[str]) -> str:
    pattern = args.get("pattern")
    path = args.get("path") if isinstance(args.get("path"), str) and args.get("path") else "."
    text = f"{_quoted(pattern)} in {path}" if isinstance(pattern, str) else str(path)
    return text + (f" ({', '.join(extras)})" if extras else "")


def summarize_args(tool_name: str, args: Any) -> str:
    """One line saying what the call does: the command for bash, pattern and path for searches, the path
    for file tools."""
    if not isinstance(args, dict):
        return ""
    if tool_name == "bash":
        lines = command_lines(args)
        return lines[0].strip() if lines else ""
    if tool_name == "grep":
        extras = []
        if isinstance(args.get("glob"), str) and args["glob"]:
            extras.append(f"glob {args['glob']}")
        if args.get("ignoreCase"):
            extras.append("ignore case")
        if args.get("literal"):
            extras.append("literal")
        if args.get("context"):
            extras.append(f"context {args['context']}")
        if args.get("limit"):
            extras.append(f"limit {args['limit']}")
        return _search_summary(args, extras)
    if tool_name == "find":
        return _search_summary(args, [f"limit {args['limit']}"] if args.get("limit") else [])
    if tool_name == "task":
        agent = args.get("agent") if isinstance(args.get("agent"), str) else "general"
        return f"{agent} · {args.get('description') or args.get('prompt') or ''}"
    if tool_name == "ls":
        raw_path = args.get("path")
        path = raw_path if isinstance(raw_path, str) and raw_path else "."
        return path + (f" (limit {args['limit']})" if args.get("limit") else "")
    for key in ("path", "file_path", "pattern", "query"):
        value = args.get(key)
        if isinstance(value, str):
            extra = ""
            if tool_name == "read" and (args.get("offset") or args.get("limit")):
                extra = f" :{args.get('offset') or 1}" + (f"+{args['limit']}" if args.get("limit") else "")
            return value + extra
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= 100 else text[:99] + "…"


def result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return "" if result is None else str(result)
    parts = []
    for block in result.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def split_abort(result: Any, text: str) -> tuple[bool, str]:
    """(aborted?, the text without its abort line). A result is aborted when its details say so or its last
    line is an abort mark."""
    details = result.get("details") if isinstance(result, dict) else None
    flagged = isinstance(details, dict) and details.get("aborted") is True
    match = _ABORT_MARK.search(text.rstrip())
    if match is None:
        return flagged, text
    return True, text.rstrip()[: match.start()].rstrip("\n")


def diff_content(diff: str) -> Content:
    """Colour a compact diff (`+NN text`, `-NN text`, ` NN text`, `...`)."""
    lines = []
    for line in diff.splitlines():
        if line.startswith("+"):
            lines.append(Content.styled(line, "$diff-added"))
        elif line.startswith("-"):
            lines.append(Content.styled(line, "$diff-removed"))
        else:
            lines.append(Content.styled(line, "$text-muted"))
    return Content("\n").join(lines)


@lru_cache(maxsize=64)
def language_for(path: str) -> str:
    """The Pygments language of a file name ("text" when unknown). By name only: guessing from the
    content tries every lexer and costs tens of milliseconds."""
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    name = path.rsplit("/", 1)[-1]
    if name.endswith(".tcss"):
        return "scss"
    try:
        lexer = get_lexer_for_filename(name)
    except ClassNotFound:
        return "text"
    return lexer.aliases[0] if lexer.aliases else "text"


# Past this many lines a file is shown unhighlighted: highlighting is linear in size and runs on the UI loop.
HIGHLIGHT_MAX_LINES = 2000


def highlighted(code: str, language: str) -> Content:
    from textual.highlight import highlight

    if language == "text" or code.count("\n") > HIGHLIGHT_MAX_LINES:
        return Content(code)
    return highlight(code, language=language)
