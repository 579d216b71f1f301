"""The approval card: a tool call waits for y (allow once), a (always allow) or n (reject)."""

from __future__ import annotations

import json
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from atomic.core.permissions import ApprovalRequest, Decision
from atomic.tui.screens.extension_dialogs import ExtensionDialog

_CHOICES: tuple[tuple[Decision, str], ...] = (
    ("allow_once", "Yes, run it (y)"),
    ("allow_always", "Yes, and don't ask again for this in this session (a)"),
    ("reject_once", "No, tell the model to do something else (n)"),
)
# Arguments are shown so the person sees what runs; a huge write is cut to its start.
_ARGS_PREVIEW_CHARS = 1200


def _always_label(request: ApprovalRequest) -> str:
    if request.kind == "execute":
        if request.command_prefix is None:
            return "Yes (this command chains or redirects: it will be asked again) (a)"
        return f"Yes, and don't ask again for `{request.command_prefix}` commands (a)"
    return f"Yes, and don't ask again for {request.tool_name} in this session (a)"


def _args_preview(request: ApprovalRequest) -> str:
    if request.tool_name == "bash":
        return str(request.args.get("command", ""))[:_ARGS_PREVIEW_CHARS]
    text = json.dumps(request.args, indent=2, ensure_ascii=False)
    return text if len(text) <= _ARGS_PREVIEW_CHARS else text[:_ARGS_PREVIEW_CHARS] + "\n…"


class ApprovalScreen(ExtensionDialog[Decision | None]):
    """Dismisses with the decision; Esc (None) rejects once."""

    HINT = "y allow · a always allow · n reject · esc reject"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('allow_once')", show=False),
        Binding("a", "decide('allow_always')", show=False),
        Binding("n", "decide('reject_once')", show=False),
    ]

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__(f"Allow {request.tool_name}?")
        self.request = request

    def compose(self) -> ComposeResult:
        labels = {decision: label for decision, label in _CHOICES}
        labels["allow_always"] = _always_label(self.request)
        with self.panel():
            yield Static(self.request.title, classes="dialog-message", markup=False)
            if self.request.tool_name != "bash":
                yield Static(_args_preview(self.request), classes="dialog-message", markup=False)
            yield OptionList(*[Option(labels[d], id=d) for d, _ in _CHOICES], id="approval-choices")
            yield self.hint()

    def on_mount(self) -> None:
        choices = self.query_one("#approval-choices", OptionList)
        choices.highlighted = 0
        choices.focus()

    def action_decide(self, decision: Decision) -> None:
        self.dismiss(decision)

    @on(OptionList.OptionSelected, "#approval-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        for decision, _label in _CHOICES:
            if event.option.id == decision:
                self.dismiss(decision)
