"""HTML for tool calls, their results, edit diffs and `!` bash executions."""

from __future__ import annotations

import json
import re
from typing import Any

from atomic.core.export.markdown_render import code_block, escape

# Output longer than this is folded into a <details> so the conversation stays scannable.
COLLAPSE_LINES = 20
COLLAPSE_CHARS = 2_000

_SAFE_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/=\s]*$")
# One line of the edit tool's diff: marker, right-aligned line number, a space, the text.
_DIFF_LINE = re.compile(r"^([+\- ])( *\d+) (.*)$", re.DOTALL)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def image_html(block: dict[str, Any]) -> str:
    """An inline data: image, only for plain raster types and clean base64 (never SVG)."""
    mime = _text(block.get("mimeType"))
    data = _text(block.get("data"))
    if mime not in _SAFE_IMAGE_TYPES or not data or not _BASE64.match(data):
        return f'<p class="muted">[image: {escape(mime or "unknown type")}]</p>'
    return f'<img class="inline-image" alt="image" src="data:{mime};base64,{escape(data)}">'


def blocks_text(content: Any) -> str:
    """Joined text of a content value that is either a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(_text(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text")


def blocks_images(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "".join(image_html(b) for b in content if isinstance(b, dict) and b.get("type") == "image")


def foldable(inner_html: str, text: str, label: str, *, open_when_short: bool = True) -> str:
    """Show `inner_html` directly when `text` is short, else inside a closed <details>."""
    line_count = text.count("\n") + 1 if text else 0
    if open_when_short and line_count <= COLLAPSE_LINES and len(text) <= COLLAPSE_CHARS:
        return inner_html
    summary = f'{escape(label)} <span class="muted">({line_count} lines)</span>'
    return f'<details class="fold"><summary>{summary}</summary>{inner_html}</details>'


def diff_html(diff: str) -> str:
    """The edit tool's text diff as coloured lines with a line-number gutter."""
    rows: list[str] = []
    for line in diff.split("\n"):
        match = _DIFF_LINE.match(line)
        if match is None:
            rows.append(f'<span class="dl gap"><span class="ln"></span>{escape(line)}</span>')
            continue
        marker, number, body = match.groups()
        kind = {"+": "add", "-": "del"}.get(marker, "ctx")
        gutter = number.strip() if kind == "ctx" else marker + number.strip()
        rows.append(
            f'<span class="dl {kind}"><span class="ln">{escape(gutter)}</span>{escape(body)}</span>'
        )
    return f'<pre class="diff">{"".join(rows)}</pre>'


def _args_summary(name: str, args: dict[str, Any]) -> str:
    """The one-line gist of a call for its header, e.g. the path or the command."""
    path = _text(args.get("path")) or _text(args.get("file_path"))
    if name == "bash":
        first = _text(args.get("command")).split("\n", 1)[0]
        return first if len(first) <= 160 else first[:157] + "..."
    if name == "read" and path:
        offset, limit = args.get("offset"), args.get("limit")
        if isinstance(offset, int) or isinstance(limit, int):
            start = offset if isinstance(offset, int) else 1
            end = f"{start + limit - 1}" if isinstance(limit, int) else ""
            return f"{path}:{start}-{end}"
        return path
    if name in ("grep", "find"):
        pattern = _text(args.get("pattern"))
        return f"{pattern} in {path or '.'}"
    return path


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _call_body(name: str, args: dict[str, Any], result: dict[str, Any] | None) -> str:
    """The arguments worth showing in full for this tool."""
    if name == "bash":
        command = _text(args.get("command"))
        timeout = args.get("timeout")
        extra = f'<p class="muted">timeout: {escape(timeout)} s</p>' if timeout is not None else ""
        return code_block(command, "bash") + extra if "\n" in command or len(command) > 160 else extra
    if name == "write":
        content = _text(args.get("content"))
        return foldable(code_block(content, filename=_text(args.get("path"))), content, "File content")
    if name == "edit":
        details = result.get("details") if result else None
        if isinstance(details, dict) and isinstance(details.get("diff"), str):
            return ""  # the result's diff says it better than the raw old/new texts
        return foldable(code_block(_json(args), "json"), _json(args), "Edits", open_when_short=False)
    if name in ("read", "ls", "find", "grep") and set(args) <= {"path", "offset", "limit", "pattern"}:
        return ""  # everything is already in the header
    if not args:
        return ""
    text = _json(args)
    return foldable(code_block(text, "json"), text, "Arguments")


def tool_result_html(result: dict[str, Any], tool_name: str, args: dict[str, Any]) -> str:
    content = result.get("content")
    text = blocks_text(content)
    details = result.get("details")
    parts: list[str] = []
    if tool_name == "edit" and isinstance(details, dict) and isinstance(details.get("diff"), str):
        diff = details["diff"]
        parts.append(foldable(diff_html(diff), diff, "Diff"))
        if text:
            parts.append(f'<p class="muted">{escape(text)}</p>')
    elif text:
        filename = _text(args.get("path")) if tool_name == "read" and not result.get("isError") else None
        block = (
            code_block(text, filename=filename) if filename else f'<pre class="output">{escape(text)}</pre>'
        )
        parts.append(foldable(block, text, "Output"))
    parts.append(blocks_images(content))
    if not text and not parts[-1]:
        parts.append('<p class="muted">(no output)</p>')
    error_class = " error" if result.get("isError") else ""
    return f'<div class="tool-result{error_class}">{"".join(parts)}</div>'


def tool_call_html(call: dict[str, Any], result: dict[str, Any] | None) -> str:
    """One tool call card with its result nested inside (or a note that none arrived)."""
    name = _text(call.get("name")) or "tool"
    args = value if isinstance(value := call.get("arguments"), dict) else {}
    summary = _args_summary(name, args)
    status = ""
    if result is None:
        status = '<span class="badge warn">no result</span>'
    elif result.get("isError"):
        status = '<span class="badge err">error</span>'
    header = (
        f'<div class="tool-head"><span class="tool-name">{escape(name)}</span>'
        f'<code class="tool-summary">{escape(summary)}</code>{status}</div>'
    )
    body = _call_body(name, args, result)
    result_html = tool_result_html(result, name, args) if result is not None else ""
    return f'<div class="tool-call" data-tool="{escape(name)}">{header}{body}{result_html}</div>'


def bash_execution_html(message: dict[str, Any]) -> str:
    """A command the user ran with `!` (or `!!`, kept out of the model's context)."""
    command = _text(message.get("command"))
    output = _text(message.get("output"))
    exit_code = message.get("exitCode")
    badges: list[str] = []
    if message.get("cancelled"):
        badges.append('<span class="badge warn">cancelled</span>')
    elif isinstance(exit_code, int) and not isinstance(exit_code, bool):
        kind = "ok" if exit_code == 0 else "err"
        badges.append(f'<span class="badge {kind}">exit {exit_code}</span>')
    if message.get("truncated"):
        badges.append('<span class="badge warn">truncated</span>')
    if message.get("excludeFromContext"):
        badges.append('<span class="badge">not sent to model</span>')
    full_path = _text(message.get("fullOutputPath"))
    note = f'<p class="muted">Full output: <code>{escape(full_path)}</code></p>' if full_path else ""
    output_html = (
        foldable(f'<pre class="output">{escape(output)}</pre>', output, "Output")
        if output
        else '<p class="muted">(no output)</p>'
    )
    return (
        f'<div class="tool-call bash-exec"><div class="tool-head"><span class="tool-name">$</span>'
        f'<code class="tool-summary">{escape(command)}</code>{"".join(badges)}</div>'
        f"{output_html}{note}</div>"
    )
