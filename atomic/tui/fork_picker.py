"""A small picker of earlier user messages for /fork (dismisses with the chosen entry id)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from atomic.tui.formatting import first_line


class ForkPickerScreen(ModalScreen[str | None]):
    DEFAULT_CSS = """
    ForkPickerScreen { align: center middle; }
    ForkPickerScreen > Vertical { width: 80%; height: auto; max-height: 80%; border: round $accent; background: $surface; }
    ForkPickerScreen OptionList { height: auto; max-height: 20; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, messages: list[dict[str, str]]) -> None:
        super().__init__()
        self.messages = messages

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Fork from which message? (enter select · esc cancel)")
            yield OptionList(*(Option(first_line(m["text"], 100), id=m["entryId"]) for m in reversed(self.messages)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
