"""/mcp: the MCP servers, their status, tools and errors; Enter reconnects the highlighted server."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from atomic.tui.screens._picker import AtomicModal

if TYPE_CHECKING:
    from atomic.core.contract import Engine, McpServerStatus

STATUS_TEXT = {
    "starting": "starting…",
    "connected": "connected",
    "failed": "failed",
    "crashed": "crashed (next call restarts it)",
    "reconnecting": "reconnecting…",
    "needs login": "needs login",
    "stopped": "stopped",
    "untrusted": "not trusted",
    "disabled": "disabled",
}
NO_SERVERS = (
    "No MCP servers are configured. Add them to ~/.atomic/agent/mcp.json or the project's .mcp.json "
    '({"mcpServers": {"name": {"command": "...", "args": []}}}); see docs/mcp.md.'
)


def detail_text(state: McpServerStatus) -> str:
    lines = [f"{state.name}  ({state.source}, {state.transport})  {state.target}"]
    if state.server_name:
        renewed = f"   sessions renewed: {state.session_renewals}" if state.session_renewals else ""
        lines.append(f"server: {state.server_name}   restarts: {state.restarts}{renewed}")
    if state.error:
        lines.append(f"error: {state.error}")
    if state.status == "untrusted":
        lines.append("This project's servers start only when the folder is trusted (atomic --approve).")
    if state.tools:
        shown = ", ".join(state.tools[:30]) + (f", … ({len(state.tools)} in all)" if len(state.tools) > 30 else "")
        lines.append(f"tools: {shown}")
        if state.deferred:
            lines.append("tools are loaded on demand through mcp_tool_search (they would crowd the context)")
    if state.log_path:
        lines.append(f"log: {state.log_path}")
    return "\n".join(lines)


class McpScreen(AtomicModal[None]):
    DEFAULT_CSS = """
    McpScreen DataTable {
        height: auto;
        max-height: 16;
        background: $surface;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "reconnect", "Reconnect", show=False, priority=True),
        Binding("r", "reconnect", "Reconnect", show=False),
        Binding("l", "login", "Log in", show=False),
    ]

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.states: list[McpServerStatus] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel") as panel:
            panel.border_title = "MCP servers"
            yield DataTable(cursor_type="row", id="mcp-table")
            yield Static("", classes="panel-detail", id="mcp-detail")
            yield Static("↑↓ move · enter reconnect · l log in (remote) · esc close", classes="panel-hint")

    def on_mount(self) -> None:
        table = self.query_one("#mcp-table", DataTable)
        table.add_columns("Server", "Status", "Source", "Tools")
        self.refresh_rows()
        table.focus()
        # Servers connect in the background: keep the view current while it is open.
        self.set_interval(0.5, self.refresh_rows)

    def refresh_rows(self) -> None:
        states = self.engine.mcp.servers()
        table = self.query_one("#mcp-table", DataTable)
        if states != self.states:
            row = table.cursor_row
            self.states = states
            table.clear()
            for state in states:
                table.add_row(state.name, STATUS_TEXT.get(state.status, state.status), state.source,
                              str(len(state.tools)), key=state.name)
            if states:
                table.move_cursor(row=min(max(row, 0), len(states) - 1))
        self._show_detail()

    def _selected(self) -> McpServerStatus | None:
        table = self.query_one("#mcp-table", DataTable)
        if not self.states or table.cursor_row < 0 or table.cursor_row >= len(self.states):
            return None
        return self.states[table.cursor_row]

    def _show_detail(self) -> None:
        detail = self.query_one("#mcp-detail", Static)
        state = self._selected()
        detail.update(NO_SERVERS if not self.states else detail_text(state) if state else "")

    def on_data_table_row_highlighted(self, _event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def action_reconnect(self) -> None:
        state = self._selected()
        if state is None:
            return
        if state.status in ("untrusted", "disabled"):
            self.app.notify(f"{state.name} is {STATUS_TEXT[state.status]}; it cannot be started here",
                            severity="warning")
            return
        self.app.notify(f"Reconnecting {state.name}…")

        async def reconnect() -> None:
            result = await self.engine.mcp.reconnect(state.name)
            self.refresh_rows()
            if result is None:
                return  # the server is gone (the configuration changed meanwhile)
            if result.status == "connected":
                self.app.notify(f"{state.name}: connected, {len(result.tools)} tools")
            else:
                self.app.notify(f"{state.name}: {result.error or result.status}", severity="error")

        self.run_worker(reconnect(), group="mcp-reconnect", exclusive=True)

    def action_login(self) -> None:
        """OAuth login of a remote server: the URL opens in the browser and is shown to copy."""
        state = self._selected()
        if state is None:
            return
        if state.transport == "stdio":
            self.app.notify(f"{state.name} runs locally; it has no login", severity="warning")
            return

        def show(url: str) -> None:
            self.app.notify(f"Log in to {state.name} in your browser:\n{url}", timeout=120)
            import webbrowser

            try:
                webbrowser.open(url)
            except Exception:  # noqa: BLE001 - the URL is shown either way
                pass

        async def login() -> None:
            result = await self.engine.mcp.login(state.name, show)
            self.refresh_rows()
            if result is not None and result.status == "connected":
                self.app.notify(f"{state.name}: logged in, {len(result.tools)} tools")
            elif result is not None:
                self.app.notify(f"{state.name}: {result.error or result.status}", severity="error")

        self.run_worker(login(), group="mcp-login", exclusive=True)
