"""The dialogs an extension opens with `ctx.ui.confirm/select/input/editor`, as typed modal screens.

Each dismisses with its answer (None: cancelled with Esc). The engine may end a dialog first (its
timeout, or an abort): `expire()` then closes it, at once when it is on top, else as soon as the
dialogs above it are gone.
"""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from atomic.tui.screens._picker import PANEL_CSS

T = TypeVar("T")

DIALOG_CSS = (
    """
    ExtensionDialog {
        align: center middle;
        background: $background 60%;
    }
    ExtensionDialog .dialog-message { height: auto; margin-bottom: 1; }
    ExtensionDialog TextArea { height: 12; border: none; background: $boost; }
    """
    + PANEL_CSS
)


class ExtensionDialog(ModalScreen[T], Generic[T]):
    DEFAULT_CSS = DIALOG_CSS
    HINT: ClassVar[str] = "esc cancel"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False, priority=True)]

    def __init__(self, title: str) -> None:
        super().__init__()
        self.dialog_title = title
        self._expired = False

    def panel(self) -> Vertical:
        panel = Vertical(classes="atomic-panel")
        panel.border_title = self.dialog_title
        return panel

    def hint(self) -> Static:
        return Static(self.HINT, classes="panel-hint")

    def action_cancel(self) -> None:
        self.dismiss(None)

    def expire(self) -> None:
        """The engine ended this dialog (timeout or abort): close it without an answer."""
        if self._expired:
            return
        self._expired = True
        if self.is_current:
            self.dismiss(None)

    def on_screen_resume(self) -> None:
        if self._expired:
            self.dismiss(None)


class ConfirmDialog(ExtensionDialog[bool | None]):
    """Yes (True) or no (False); Esc is None (cancelled)."""

    HINT = "y yes · n no · ↑↓ enter choose · esc cancel"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", show=False),
        Binding("n", "answer(False)", show=False),
    ]

    def __init__(self, title: str, message: str) -> None:
        super().__init__(title)
        self.message = message

    def compose(self) -> ComposeResult:
        with self.panel():
            yield Static(self.message, classes="dialog-message", markup=False)
            yield OptionList(Option("Yes", id="yes"), Option("No", id="no"), id="dialog-choices")
            yield self.hint()

    def on_mount(self) -> None:
        choices = self.query_one("#dialog-choices", OptionList)
        choices.highlighted = 0
        choices.focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(OptionList.OptionSelected, "#dialog-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id == "yes")


class SelectDialog(ExtensionDialog[str | None]):
    """One of the options (its text), or None."""

    HINT = "↑↓ move · enter select · esc cancel"

    def __init__(self, title: str, options: list[str]) -> None:
        super().__init__(title)
        self.options = list(options)

    def compose(self) -> ComposeResult:
        with self.panel():
            yield OptionList(*[Option(text, id=str(i)) for i, text in enumerate(self.options)], id="dialog-options")
            yield self.hint()

    def on_mount(self) -> None:
        options = self.query_one("#dialog-options", OptionList)
        options.highlighted = 0 if self.options else None
        options.focus()

    @on(OptionList.OptionSelected, "#dialog-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[int(event.option.id or 0)])


class InputDialog(ExtensionDialog[str | None]):
    """One line of text (possibly empty), or None."""

    HINT = "enter submit · esc cancel"

    def __init__(self, title: str, placeholder: str = "") -> None:
        super().__init__(title)
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with self.panel():
            yield Input(placeholder=self.placeholder, id="dialog-input")
            yield self.hint()

    def on_mount(self) -> None:
        self.query_one("#dialog-input", Input).focus()

    @on(Input.Submitted, "#dialog-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)


class EditorDialog(ExtensionDialog[str | None]):
    """Multi-line text starting from the prefill; ctrl+s submits (enter is a new line), or None."""

    HINT = "ctrl+s submit · enter new line · esc cancel"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "submit", "Submit", show=False, priority=True)]

    def __init__(self, title: str, prefill: str = "") -> None:
        super().__init__(title)
        self.prefill = prefill

    def compose(self) -> ComposeResult:
        with self.panel():
            yield TextArea(self.prefill, id="dialog-editor", soft_wrap=True, show_line_numbers=False)
            yield self.hint()

    def on_mount(self) -> None:
        editor = self.query_one("#dialog-editor", TextArea)
        editor.focus()
        editor.move_cursor(editor.document.end)

    def action_submit(self) -> None:
        self.dismiss(self.query_one("#dialog-editor", TextArea).text)
