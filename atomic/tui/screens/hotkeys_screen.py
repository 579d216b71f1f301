"""/hotkeys: a table of the app's key bindings (the app passes its own binding table)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from atomic.tui.screens._picker import AtomicModal


class HotkeysScreen(AtomicModal[None]):
    DEFAULT_CSS = """
    HotkeysScreen DataTable {
        height: auto;
        max-height: 30;
        background: $surface;
    }
    """

    def __init__(self, bindings: list[tuple[str, str]]) -> None:
        super().__init__()
        self.bindings_table = list(bindings)

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel") as panel:
            panel.border_title = "Keyboard shortcuts"
            table: DataTable[str] = DataTable(cursor_type="row", zebra_stripes=True, id="hotkeys-table")
            yield table
            yield Static("↑↓ scroll · esc close", classes="panel-hint")

    def on_mount(self) -> None:
        table = self.query_one("#hotkeys-table", DataTable)
        table.add_columns("Key", "Action")
        for key, description in self.bindings_table:
            table.add_row(key, description)
        table.focus()
