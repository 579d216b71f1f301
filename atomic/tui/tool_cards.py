"""Tool-call cards: name and arguments, a status, output collapsed to a few lines (Ctrl+O expands all)."""

from __future__ import annotations

import json
import re
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

PREVIEW_LINES = 5
_EXIT_CODE = re.compile(r"Command exited with code (\d+)\s*$")

STATUS_LABELS = {"pending": "pending", "running": "running…", "done": "done", "failed": "failed"}


def summarize_args(tool_name: str, args: Any) -> str:
    """One line saying what the call does: the command for bash, the path for file tools."""
    if not isinstance(args, dict):
        return ""
    if tool_name == "bash" and isinstance(args.get("command"), str):
        return args["command"].strip().splitlines()[0] if args["command"].strip() else ""
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


class ToolCard(VerticalGroup):
    DEFAULT_CSS = """
    ToolCard { border-left: thick $panel; padding: 0 1; background: $surface; }
    ToolCard.-pending { border-left: thick $panel-lighten-2; }
    ToolCard.-running { border-left: thick $warning; }
    ToolCard.-done { border-left: thick $success; }
    ToolCard.-failed { border-left: thick $error; }
    ToolCard > .tool-header { text-style: bold; }
    ToolCard > .tool-output { color: $text-muted; }
    ToolCard.-failed > .tool-output { color: $error; }
    ToolCard > .tool-full { display: none; color: $text-muted; }
    ToolCard.-failed > .tool-full { color: $error; }
    ToolCard > .tool-empty { display: none; }
    """

    def __init__(self, call_id: str, tool_name: str, args: Any = None, status: str = "pending") -> None:
        super().__init__(classes=f"-{status}")
        self.call_id = call_id
        self.tool_name = tool_name
        self.args = args
        self.status = status
        self.output = ""
        self.diff: str | None = None
        self.exit_code: int | None = None
        self._header = Static(self._header_content(), classes="tool-header")
        self._preview = Static("", classes="tool-output tool-preview tool-empty")
        self._full = Static("", classes="tool-full tool-empty")

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._preview
        yield self._full

    def _header_content(self) -> Content:
        summary = summarize_args(self.tool_name, self.args)
        status = STATUS_LABELS.get(self.status, self.status)
        if self.status == "failed" and self.exit_code is not None:
            status = f"exit code {self.exit_code}"
        elif self.status == "done" and self.tool_name == "bash":
            status = "exit code 0"
        style = {"pending": "$text-muted", "running": "$warning", "done": "$success", "failed": "$error"}
        return Content.assemble(
            (self.tool_name, "bold $accent"),
            " ",
            Content(summary),
            "  ",
            (status, style.get(self.status, "")),
        )

    def set_status(self, status: str, args: Any = None) -> None:
        self.status = status
        if args is not None:
            self.args = args
        for name in ("pending", "running", "done", "failed"):
            self.set_class(name == status, f"-{name}")
        self._header.update(self._header_content())

    def set_output(self, text: str) -> None:
        self.output = text
        self._render_output()

    def finish(self, result: Any, is_error: bool) -> None:
        text = result_text(result)
        details = result.get("details") if isinstance(result, dict) else None
        if isinstance(details, dict) and isinstance(details.get("diff"), str) and not is_error:
            self.diff = details["diff"]
        if self.tool_name == "bash" and is_error:
            match = _EXIT_CODE.search(text)
            self.exit_code = int(match.group(1)) if match else None
        self.output = text
        self.set_status("failed" if is_error else "done")
        self._render_output()

    def _render_output(self) -> None:
        if self.diff is not None:
            full = diff_content(self.diff)
            lines = self.diff.splitlines()
        else:
            lines = self.output.rstrip("\n").splitlines()
            full = Content("\n".join(lines))
        # Bash and failures matter at the end; file contents at the start.
        from_end = self.tool_name == "bash" or self.status == "failed"
        limit = PREVIEW_LINES * 2 if self.diff is not None else PREVIEW_LINES
        if len(lines) <= limit:
            preview = full
        else:
            hidden = len(lines) - limit
            note = Content.styled(f"… {hidden} more lines (ctrl+o to expand)", "italic $text-muted")
            shown = full.split("\n")
            kept = shown[-limit:] if from_end else shown[:limit]
            body = Content("\n").join(kept)
            preview = Content("\n").join([note, body]) if from_end else Content("\n").join([body, note])
        empty = not lines
        self._preview.set_class(empty, "tool-empty")
        self._full.set_class(empty, "tool-empty")
        self._preview.update(preview)
        self._full.update(full)
