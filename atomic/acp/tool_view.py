"""How one tool call looks to an ACP client: its kind, title, locations and content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import ToolCallLocation

from atomic.core.contract import FileChange

# ACP's tool kinds for Atomic's built-in tools; MCP and extension tools are "other".
TOOL_KINDS: dict[str, str] = {
    "read": "read",
    "write": "edit",
    "edit": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
}


def tool_kind(tool_name: str) -> Any:
    return TOOL_KINDS.get(tool_name, "other")


def _absolute(cwd: Path, raw: object) -> str | None:
    if not isinstance(raw, str) or not raw.strip():
        return None
    path = Path(raw).expanduser()
    return str(path if path.is_absolute() else cwd / path)


def tool_title(tool_name: str, args: dict[str, Any]) -> str:
    if tool_name == "bash":
        command = str(args.get("command", "")).strip()
        return command.splitlines()[0] if command else "bash"
    if tool_name in ("read", "write", "edit", "ls"):
        target = args.get("path") or "."
        return f"{tool_name} {target}"
    if tool_name in ("grep", "find"):
        pattern = args.get("pattern", "")
        where = args.get("path") or "."
        return f"{tool_name} {pattern} in {where}"
    return tool_name


def tool_locations(cwd: Path, tool_name: str, args: dict[str, Any]) -> list[ToolCallLocation] | None:
    path = _absolute(cwd, args.get("path"))
    if path is None:
        return None
    line = args.get("offset") if tool_name == "read" else None
    if isinstance(line, int) and not isinstance(line, bool) and line >= 0:
        return [ToolCallLocation(path=path, line=line)]
    return [ToolCallLocation(path=path)]


def result_text(result: Any) -> str:
    """The text blocks of a tool result as the engine reports it (`{"content": [...], ...}`)."""
    if not isinstance(result, dict):
        return ""
    blocks = result.get("content") or []
    return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def text_content(text: str) -> list[Any]:
    return [helpers.tool_content(helpers.text_block(text))] if text else []


def diff_content(change: FileChange) -> list[Any]:
    return [helpers.tool_diff_content(str(change.path), change.new_text, change.old_text)]


def _edit_pairs(args: dict[str, Any]) -> list[tuple[str, str]]:
    """The (old, new) replacements of an edit call: its `edits` (a list, or that list as JSON) and the
    older top-level `oldText`/`newText`."""
    raw: Any = args.get("edits")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    items = [i for i in raw if isinstance(i, dict)] if isinstance(raw, list) else []
    if "oldText" in args or "newText" in args:
        items.append({"oldText": args.get("oldText"), "newText": args.get("newText")})
    return [(i["oldText"], i["newText"]) for i in items
            if isinstance(i.get("oldText"), str) and isinstance(i.get("newText"), str)]


def replayed_diffs(cwd: Path, tool_name: str, args: dict[str, Any]) -> list[Any]:
    """`diff` contents for a stored write or edit call (session/load), from its arguments."""
    path = _absolute(cwd, args.get("path"))
    if path is None:
        return []
    if tool_name == "write" and isinstance(args.get("content"), str):
        return [helpers.tool_diff_content(path, args["content"], None)]
    if tool_name == "edit":
        return [helpers.tool_diff_content(path, new, old) for old, new in _edit_pairs(args)]
    return []
