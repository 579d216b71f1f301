"""Tool-call cards: what the call does, a status, and what came out, collapsed to a few lines (Ctrl+O
expands all).

- bash shows every line of its command; output streams in and stays when the call is aborted.
- write shows the written content, highlighted by file type; edit shows its coloured diff.
- grep/find show the pattern and the path; ls the path.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

from atomic.tui.ansi_output import coloured_content, coloured_tail, plain_text
from atomic.tui.tool_format import (
    command_lines,
    diff_content,
    highlighted,
    language_for,
    result_text,
    split_abort,
    summarize_args,
)

__all__ = ["PREVIEW_LINES", "WRITE_PREVIEW_LINES", "ToolCard", "result_text", "summarize_args"]

PREVIEW_LINES = 5
WRITE_PREVIEW_LINES = 8
_EXIT_CODE = re.compile(r"Command exited with code (\d+)\s*$")

STATES = ("pending", "running", "done", "failed", "aborted")
STATUS_LABELS = {"pending": "pending", "running": "running…", "done": "done", "failed": "failed", "aborted": "aborted"}
STATUS_STYLES = {
    "pending": "$text-muted",
    "running": "$warning",
    "done": "$success",
    "failed": "$error",
    "aborted": "$warning",
}


def _more_note(hidden: int, total: int) -> Content:
    more = "1 more line" if hidden == 1 else f"{hidden} more lines"
    return Content.styled(f"… {more}, {total} in all (ctrl+o to expand)", "italic $text-muted")


class ToolCard(VerticalGroup):
    DEFAULT_CSS = """
    ToolCard { border-left: thick $panel; padding: 0 1; background: $surface; }
    ToolCard.-pending { border-left: thick $panel-lighten-2; }
    ToolCard.-running { border-left: thick $warning; }
    ToolCard.-done { border-left: thick $success; }
    ToolCard.-failed { border-left: thick $error; }
    ToolCard.-aborted { border-left: thick $warning; }
    ToolCard > .tool-header { text-style: bold; }
    ToolCard > .tool-command { padding-left: 5; }  /* under the command, after "bash " */
    ToolCard > .tool-output { color: $text-muted; }
    ToolCard.-failed > .tool-output { color: $error; }
    ToolCard > .tool-full { display: none; color: $text-muted; }
    ToolCard.-failed > .tool-full { color: $error; }
    ToolCard.-written > .tool-output, ToolCard.-written > .tool-full { color: $foreground; }
    /* Output with the command's own colours: the rest in the terminal's plain colour, as a terminal shows it. */
    ToolCard.-coloured > .tool-output, ToolCard.-coloured > .tool-full { color: $foreground; }
    ToolCard > .tool-empty { display: none; }
    """

    def __init__(self, call_id: str, tool_name: str, args: Any = None, status: str = "pending") -> None:
        super().__init__(classes=f"-{status}")
        self.call_id = call_id
        self.tool_name = tool_name
        self.args = args
        self.status = status
        self.output = ""
        # The output with the command's colours, when the engine sent it (live bash calls); None: `output`.
        self.coloured_output: str | None = None
        self.diff: str | None = None
        self.exit_code: int | None = None
        self._header = Static(self._header_content(), classes="tool-header")
        self._command = Static("", classes="tool-command tool-empty")
        self._preview = Static("", classes="tool-output tool-preview tool-empty")
        self._full = LazyCode(classes="tool-full tool-empty")
        self._update_command()
        self._render_output()

    def compose(self) -> ComposeResult:
        yield self._header
        yield self._command
        yield self._preview
        yield self._full

    # ------------------------------------------------------------------ header

    def _header_content(self) -> Content:
        summary = summarize_args(self.tool_name, self.args)
        status = STATUS_LABELS.get(self.status, self.status)
        if self.status == "failed" and self.exit_code is not None:
            status = f"exit code {self.exit_code}"
        elif self.status == "done" and self.tool_name == "bash":
            status = "exit code 0"
        elif self.status == "done" and self._written() is not None:
            count = len(self._written_lines())
            status = f"done · {count} line{'' if count == 1 else 's'}"
        summary_content = highlighted(summary, "bash") if self.tool_name == "bash" and summary else Content(summary)
        return Content.assemble(
            (self.tool_name, "bold $accent"),
            " ",
            summary_content,
            "  ",
            (status, STATUS_STYLES.get(self.status, "")),
        )

    def _update_command(self) -> None:
        """The lines of a multi-line bash command after the first (the first is in the header)."""
        lines = command_lines(self.args) if self.tool_name == "bash" else []
        rest = lines[1:]
        self._command.set_class(not rest, "tool-empty")
        if rest:
            self._command.update(highlighted("\n".join(rest), "bash"))

    # ------------------------------------------------------------------ state

    def set_status(self, status: str, args: Any = None) -> None:
        self.status = status
        if args is not None and args != self.args:
            self.args = args
            self._update_command()
            self._render_output()
        for name in STATES:
            self.set_class(name == status, f"-{name}")
        self._header.update(self._header_content())

    def set_output(self, text: str, display: str | None = None) -> None:
        self.output, self.coloured_output = text, display
        self._render_output()

    def finish(self, result: Any, is_error: bool, display: str | None = None) -> None:
        text = result_text(result)
        details = result.get("details") if isinstance(result, dict) else None
        if isinstance(details, dict) and isinstance(details.get("diff"), str) and not is_error:
            self.diff = details["diff"]
        aborted, text = split_abort(result, text) if is_error else (False, text)
        if aborted:
            # The output streamed so far stays when the result carries none of its own.
            if text.strip():
                self.output = text
                self.coloured_output = split_abort(result, display)[1] if display is not None else None
            self.set_status("aborted")
            self._render_output()
            return
        if self.tool_name == "bash" and is_error:
            match = _EXIT_CODE.search(text)
            self.exit_code = int(match.group(1)) if match else None
        self.output, self.coloured_output = text, display
        self.set_status("failed" if is_error else "done")
        self._render_output()

    # ------------------------------------------------------------------ body

    def _written(self) -> str | None:
        """The content of a write call (shown instead of the short "wrote N bytes" result)."""
        if self.tool_name != "write" or self.status in ("failed", "aborted") or not isinstance(self.args, dict):
            return None
        content = self.args.get("content")
        return content if isinstance(content, str) else None

    def _written_lines(self) -> list[str]:
        written = self._written()
        return written.rstrip("\n").splitlines() if written else []

    def _render_output(self) -> None:
        written = self._written()
        self.set_class(written is not None, "-written")
        self.set_class(self.coloured_output is not None and self.diff is None, "-coloured")
        if written is not None:
            self._render_written(written)
            return
        # Bash and failures matter at the end; file contents at the start.
        from_end = self.tool_name == "bash" or self.status in ("failed", "aborted")
        if self.coloured_output is not None and self.diff is None:
            self._render_coloured(self.coloured_output.rstrip("\n"), from_end)
            return
        if self.diff is not None:
            full = diff_content(self.diff)
            lines = self.diff.splitlines()
        else:
            full = coloured_content(self.output.rstrip("\n"))
            lines = full.plain.splitlines()
        limit = PREVIEW_LINES * 2 if self.diff is not None else PREVIEW_LINES
        if len(lines) <= limit:
            preview = full
        else:
            hidden = len(lines) - limit
            note = _more_note(hidden, len(lines))
            shown = full.split("\n")
            kept = shown[-limit:] if from_end else shown[:limit]
            body = Content("\n").join(kept)
            preview = Content("\n").join([note, body]) if from_end else Content("\n").join([body, note])
        self._show(preview, full, bool(lines))

    def _render_coloured(self, text: str, from_end: bool) -> None:
        """Output with colours: only the preview's lines are styled now (styling is linear in size and
        runs on the UI loop); the full view when Ctrl+O first shows it."""
        total = text.count("\n") + 1 if text else 0
        if total <= PREVIEW_LINES:
            preview = coloured_content(text)
        elif from_end:
            note = _more_note(total - PREVIEW_LINES, total)
            preview = Content("\n").join([note, coloured_tail(text, PREVIEW_LINES)])
        else:
            head = coloured_content("\n".join(text.split("\n", PREVIEW_LINES)[:PREVIEW_LINES]))
            preview = Content("\n").join([head, _more_note(total - PREVIEW_LINES, total)])
        self._show(preview, None, bool(total))
        self._full.set_lazy(("ansi", text), plain_text(text), lambda: coloured_content(text))

    def _render_written(self, written: str) -> None:
        lines = self._written_lines()
        path = self.args.get("path") if isinstance(self.args, dict) else None
        language = language_for(path) if isinstance(path, str) else "text"
        # Only the preview is highlighted now: highlighting is slow (docs/performance.md) and the whole
        # file is highlighted when Ctrl+O first shows it.
        preview = highlighted("\n".join(lines[:WRITE_PREVIEW_LINES]), language)
        if len(lines) > WRITE_PREVIEW_LINES:
            preview = Content("\n").join([preview, _more_note(len(lines) - WRITE_PREVIEW_LINES, len(lines))])
        self._show(preview, None, bool(lines))
        self._full.set_code("\n".join(lines), language)

    def _show(self, preview: Content, full: Content | None, shown: bool) -> None:
        self._preview.set_class(not shown, "tool-empty")
        self._full.set_class(not shown, "tool-empty")
        self._preview.update(preview)
        if full is not None:
            self._full.update(full)


class LazyCode(Static):
    """The full view of a card: highlighted when first shown (it stays hidden until Ctrl+O)."""

    def __init__(self, classes: str) -> None:
        super().__init__("", classes=classes)
        self._source: tuple[str, str] | None = None
        self._build: Callable[[], Content] | None = None

    def update(self, content: Any = "", *, layout: bool = True) -> None:
        self._source, self._build = None, None
        super().update(content, layout=layout)

    def set_code(self, code: str, language: str) -> None:
        self.set_lazy((code, language), code, lambda: highlighted(code, language))

    def set_lazy(self, source: tuple[str, str], plain: str, build: Callable[[], Content]) -> None:
        """Show `plain` until first rendered, then what `build` makes of the same text (same lines)."""
        if self._source == source:
            return
        super().update(Content(plain))
        self._source, self._build = source, build

    def render(self) -> Any:
        if self._build is not None:
            build, self._build = self._build, None
            self.content = build()  # same lines, same height: no new layout
        return super().render()
