"""Export a session's active branch as one self-contained, safe HTML page.

The page needs no network and no JavaScript to read. A Content-Security-Policy allows only our
own inline script (by hash), inline styles and data: images, so even a missed escape could not
run injected code or phone home; escaping is still done everywhere, the policy is a second wall.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import write_atomic
from atomic.core.export.branch import (
    UsageTotals,
    active_branch,
    has_messages,
    labels_by_target,
    usage_totals,
)
from atomic.core.export.entry_render import BranchRenderer, format_cost, format_time, format_tokens
from atomic.core.export.markdown_render import (
    code_block,
    escape,
    highlight_budget,
    pygments_css,
    render_markdown,
)
from atomic.core.export.style import PAGE_CSS, PAGE_SCRIPT
from atomic.core.session.tree import session_name

IN_MEMORY_ERROR = "Cannot export in-memory session to HTML"
EMPTY_ERROR = "Nothing to export yet - start a conversation first"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Enough of a file's start to hold a session header line.
_HEADER_PEEK = 64 * 1024


def _is_session_file(path: Path) -> bool:
    """True when `path` is a file whose first line is an Atomic/pi session header."""
    try:
        with path.open("rb") as handle:
            head = handle.read(_HEADER_PEEK)
    except OSError:
        return False
    first = head.split(b"\n", 1)[0].decode("utf-8", errors="replace")
    try:
        header = json.loads(first)
    except ValueError:
        return False
    return isinstance(header, dict) and header.get("type") == "session"


def check_export_target(path: Path, session_file: Path | None = None) -> None:
    """Refuse an output path that would destroy a session (ValueError with the reason)."""
    target = Path(os.path.realpath(path))
    if session_file is not None and target == Path(os.path.realpath(session_file)):
        raise ValueError(f"Refusing to export over the active session file {path}; choose another output path")
    if target.is_dir():
        raise ValueError(f"Cannot export to {path}: it is a directory")
    if _is_session_file(target):
        raise ValueError(f"Refusing to export over {path}: it is a session file; choose another output path")


def default_export_path(session_file: Path | None, cwd: Path) -> Path:
    """`<cwd>/atomic-session-<session file stem>.html`; an in-memory session cannot be exported."""
    if session_file is None:
        raise ValueError(IN_MEMORY_ERROR)
    return cwd / f"atomic-session-{session_file.stem}.html"


def _script_hash() -> str:
    digest = hashlib.sha256(PAGE_SCRIPT.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _csp() -> str:
    return (
        "default-src 'none'; "
        f"script-src '{_script_hash()}'; "
        "style-src 'unsafe-inline'; "
        "img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


def _header_html(header: dict[str, Any], heading: str, shown_entries: int, total_entries: int) -> str:
    facts: list[tuple[str, str]] = []
    for label, key in (("Session", "id"), ("Directory", "cwd"), ("Parent session", "parentSession")):
        value = header.get(key)
        if isinstance(value, str) and value:
            facts.append((label, f"<code>{escape(value)}</code>"))
    created = format_time(header.get("timestamp"), with_date=True)
    if created:
        facts.append(("Created", escape(created)))
    branch_note = f"{shown_entries} of {total_entries} entries (active branch)"
    facts.append(("Shown", escape(branch_note)))
    rows = "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in facts)
    toolbar = (
        '<div class="toolbar" id="toolbar" hidden>'
        '<button type="button" id="expand-all">Expand all</button>'
        '<button type="button" id="collapse-all">Collapse all</button></div>'
    )
    return (
        f'<header class="session"><h1>{escape(heading)}</h1><dl class="facts">{rows}</dl>{toolbar}</header>'
    )


def _context_html(system_prompt: str | None, tools: list[dict[str, Any]] | None) -> str:
    parts: list[str] = []
    if system_prompt:
        parts.append(
            f"<details><summary>System prompt</summary>"
            f'<pre class="output">{escape(system_prompt)}</pre></details>'
        )
    if tools:
        items: list[str] = []
        for tool in tools:
            if not isinstance(tool, dict):
                continue
            name = tool.get("name") if isinstance(tool.get("name"), str) else "tool"
            description = value if isinstance(value := tool.get("description"), str) else ""
            parameters = tool.get("parameters")
            params_html = (
                code_block(json.dumps(parameters, indent=2, ensure_ascii=False, default=str), "json")
                if parameters
                else ""
            )
            items.append(
                f'<details class="tool-def"><summary><code>{escape(name)}</code></summary>'
                f'<div class="md">{render_markdown(description)}</div>{params_html}</details>'
            )
        parts.append(f"<details><summary>Tools ({len(items)})</summary>{''.join(items)}</details>")
    return f'<section class="context">{"".join(parts)}</section>' if parts else ""


def _totals_html(branch_totals: UsageTotals, all_totals: UsageTotals) -> str:
    models = "".join(
        f'<li><code>{escape(model)}</code> <span class="muted">({count} message{"s" if count != 1 else ""})</span></li>'
        for model, count in branch_totals.models.items()
    )
    rows = (
        ("Input tokens", format_tokens(branch_totals.input)),
        ("Output tokens", format_tokens(branch_totals.output)),
        ("Cache read tokens", format_tokens(branch_totals.cache_read)),
        ("Cache write tokens", format_tokens(branch_totals.cache_write)),
        ("Total tokens", format_tokens(branch_totals.total_tokens)),
        ("Total cost", format_cost(branch_totals.cost)),
    )
    facts = "".join(f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in rows)
    whole_session = ""
    # Abandoned branches cost real money too; say so when they change the picture.
    if all_totals.assistant_messages != branch_totals.assistant_messages:
        whole_session = (
            f'<p class="muted">All branches of this session: {escape(format_tokens(all_totals.total_tokens))} tokens, '
            f"{escape(format_cost(all_totals.cost))}.</p>"
        )
    models_html = f"<h2>Models used</h2><ul>{models}</ul>" if models else ""
    return (
        f'<footer class="totals">{models_html}<h2>Usage (active branch)</h2>'
        f'<dl class="facts">{facts}</dl>{whole_session}</footer>'
    )


def export_session_html(
    *,
    header: dict[str, Any],
    entries: list[dict[str, Any]],
    leaf_id: str | None,
    title: str | None = None,
    system_prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None,
) -> str:
    """The whole page for the branch ending at `leaf_id` (None: the last entry in the file).

    Raises ValueError when there is no conversation to show or `leaf_id` is unknown.
    """
    if not has_messages(entries):
        raise ValueError(EMPTY_ERROR)
    branch = active_branch(entries, leaf_id)
    name = session_name(entries)
    session_id = header.get("id") if isinstance(header.get("id"), str) else ""
    heading = title or name or (f"Atomic session {session_id[:8]}" if session_id else "Atomic session")
    page_title = heading if heading.startswith("Atomic") else f"{heading} - Atomic session"

    with highlight_budget():
        context = _context_html(system_prompt, tools)
        conversation = BranchRenderer(branch, labels_by_target(entries)).render(branch)
    body = (
        _header_html(header, heading, len(branch), len(entries))
        + context
        + f'<section class="conversation">{conversation}</section>'
        + _totals_html(usage_totals(branch), usage_totals(entries))
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(_csp())}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light dark">'
        '<meta name="generator" content="Atomic">'
        f"<title>{escape(page_title)}</title>"
        f"<style>{PAGE_CSS}{pygments_css()}</style></head>\n"
        f'<body><main class="page">{body}</main>'
        f'<script id="atomic-export-script">{PAGE_SCRIPT}</script></body></html>\n'
    )


def write_session_html(
    path: Path,
    *,
    header: dict[str, Any],
    entries: list[dict[str, Any]],
    leaf_id: str | None,
    title: str | None = None,
    system_prompt: str | None = None,
    tools: list[dict[str, Any]] | None = None,
    session_file: Path | None = None,
) -> Path:
    """Render and write the page atomically (never a half-written file); returns `path`.

    The page goes to a temp file beside `path` and is renamed over it. A `path` that is the
    `session_file` being exported or any other session file (its first line is a session header)
    is refused with ValueError, so an export can never destroy a session.
    """
    check_export_target(path, session_file)
    page = export_session_html(
        header=header,
        entries=entries,
        leaf_id=leaf_id,
        title=title,
        system_prompt=system_prompt,
        tools=tools,
    )
    # A lone surrogate cannot be UTF-8 encoded; on the page it shows as U+FFFD (the session keeps it).
    write_atomic(path, _LONE_SURROGATE.sub("\ufffd", page), mode=0o600)
    return path
