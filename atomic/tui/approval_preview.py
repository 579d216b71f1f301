"""What an approval card shows of a tool call: the command, the new file's first lines, or the diff.

Pure functions over the request and the engine's `ChangePreview` (never the tool's JSON arguments).
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content

from atomic.core.contract import ApprovalRequest, ChangePreview, preview_change
from atomic.tui.formatting import tilde
from atomic.tui.tool_format import diff_content, highlighted, language_for

WRITE_PREVIEW_LINES = 20
DIFF_PREVIEW_LINES = 40
ARGUMENT_PREVIEW_CHARS = 200


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _write_preview(preview: ChangePreview) -> Content:
    text = preview.new_text or ""
    lines = text.splitlines()
    verb = "overwrite" if preview.exists else "new file"
    header = Content.styled(f"{verb} {tilde(preview.path)} · {_plural(len(lines), 'line')}", "bold")
    parts = [header]
    if lines:
        shown = "\n".join(lines[:WRITE_PREVIEW_LINES])
        parts.append(highlighted(shown, language_for(str(preview.path))))
    if len(lines) > WRITE_PREVIEW_LINES:
        rest = len(lines) - WRITE_PREVIEW_LINES
        parts.append(Content.styled(f"… {_plural(rest, 'more line')} ({len(lines):,} in all)", "$text-muted"))
    return Content("\n").join(parts)


def _edit_preview(preview: ChangePreview) -> Content:
    parts = [Content.styled(f"edit {tilde(preview.path)}", "bold")]
    if preview.problem:
        parts.append(Content.styled(f"⚠ {preview.problem}", "$warning"))
    lines = (preview.diff or "").splitlines()
    if lines:
        parts.append(diff_content("\n".join(lines[:DIFF_PREVIEW_LINES])))
    if len(lines) > DIFF_PREVIEW_LINES:
        parts.append(Content.styled(f"… {_plural(len(lines) - DIFF_PREVIEW_LINES, 'more diff line')}", "$text-muted"))
    return Content("\n").join(parts)


def _argument_lines(request: ApprovalRequest) -> Content:
    lines = []
    for key, value in request.args.items():
        text = value if isinstance(value, str) else repr(value)
        text = " ".join(text.split())
        if len(text) > ARGUMENT_PREVIEW_CHARS:
            text = text[: ARGUMENT_PREVIEW_CHARS - 1] + "…"
        lines.append(Content.assemble((f"{key}: ", "$text-muted"), text))
    return Content("\n").join(lines)


def approval_preview(request: ApprovalRequest, cwd: Path) -> Content:
    """The body of the card under its one-line title."""
    if request.kind == "execute":
        command = str(request.args.get("command", "")).strip("\n")
        # A one-line command is the title already; a longer one is shown whole, highlighted.
        return highlighted(command, "bash") if "\n" in command else Content("")
    preview = preview_change(request.tool_name, request.args, cwd)
    if preview is not None:
        return _write_preview(preview) if request.tool_name == "write" else _edit_preview(preview)
    return _argument_lines(request)
