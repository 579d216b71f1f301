"""A provider error in the conversation: a short sentence and what to do; the raw error on expansion
(Ctrl+O, like tool output, or a click). Follows the retries of that error: retrying, recovered, gave up."""

from __future__ import annotations

import json

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup
from textual.content import Content
from textual.widgets import Static

from atomic.tui.provider_errors import ErrorText

DETAILS_HINT = "ctrl+o or click: raw error"


def pretty_raw(raw: str) -> str:
    """The raw error with a JSON body indented (`529 {"type":...}` → status line, then the JSON)."""
    status, _, body = raw.partition(" ")
    candidates = [(status + "\n", body)] if status.isdigit() else []
    candidates.append(("", raw))
    for prefix, text in candidates:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict | list):
            return prefix + json.dumps(data, indent=2, ensure_ascii=False)
    return raw


class ProviderErrorView(VerticalGroup):
    # Not scoped: the expansion rule starts at Conversation (its -tools-expanded class, toggled by Ctrl+O).
    SCOPED_CSS = False
    DEFAULT_CSS = """
    ProviderErrorView { padding: 0 1; border-left: thick $error; background: $surface; }
    ProviderErrorView > .error-summary { color: $error; text-style: bold; }
    ProviderErrorView > .error-advice { color: $text-muted; }
    ProviderErrorView > .error-raw { display: none; color: $text-muted; }
    ProviderErrorView.-expanded > .error-raw { display: block; }
    Conversation.-tools-expanded ProviderErrorView > .error-raw { display: block; }
    ProviderErrorView.-retrying { border-left: thick $warning; }
    ProviderErrorView.-retrying > .error-summary { color: $warning; }
    ProviderErrorView.-recovered { border-left: thick $panel; }
    ProviderErrorView.-recovered > .error-summary { color: $text-muted; text-style: none; }
    """

    def __init__(self, error: ErrorText) -> None:
        super().__init__(classes="-failed")
        self.error = error
        self.state = "failed"
        self.note = ""
        self._summary = Static("", classes="error-summary")
        self._advice = Static("", classes="error-advice")
        self._raw = Static(Content(pretty_raw(error.raw)), classes="error-raw")
        self._paint()

    def compose(self) -> ComposeResult:
        yield self._summary
        yield self._advice
        yield self._raw

    def _paint(self) -> None:
        marks = {"failed": "✗", "retrying": "↻", "recovered": "↻", "gave_up": "✗", "cancelled": "✗"}
        self._summary.update(Content(f"{marks.get(self.state, '✗')} {self.error.summary}"))
        advice = {
            "retrying": self.note,
            "recovered": f"✓ {self.note}",
            "gave_up": f"{self.note} {self.error.advice}",
            "cancelled": f"{self.note} {self.error.advice}",
        }.get(self.state, self.error.advice)
        # No hint when the raw text says nothing more than the summary ("boom" → "Provider error: boom").
        hint = "" if self.error.raw.strip() in self.error.summary else "  ·  " + DETAILS_HINT
        self._advice.update(Content.assemble(advice.strip(), (hint, "italic $text-muted")))

    def set_state(self, state: str, note: str = "") -> None:
        """failed, retrying, recovered, gave_up or cancelled, with a few words about it."""
        self.state, self.note = state, note
        for name in ("failed", "retrying", "recovered", "gave_up", "cancelled"):
            self.set_class(name == state, f"-{name}")
        self._paint()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle_class("-expanded")
