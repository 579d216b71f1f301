"""/mcp in the real AtomicApp: servers, status, tools, errors, reconnect; server stderr stays out of the TUI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from textual.widgets import DataTable, Static

from atomic.tui.screens.mcp_screen import McpScreen
from tests.tui.helpers import behind, make_app, type_text, wait_for

from .conftest import SERVER


async def test_mcp_screen_shows_servers_and_reconnects(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "tiny": {"command": sys.executable, "args": [str(SERVER)]},
        "broken": {"command": "/no/such/mcp-binary"},
    }}))
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": {"command": "echo"}}}))
    app = make_app(cwd, approve=False)  # an explicit "no": no first-run trust dialog
    async with app.run_test(size=(120, 40)) as pilot:
        await type_text(pilot, "/mcp")
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, McpScreen), pilot)
        screen = app.screen
        assert isinstance(screen, McpScreen)
        manager = behind(app).mcp
        await wait_for(lambda: manager.connections["tiny"].status == "connected", pilot, timeout=60)
        await wait_for(lambda: manager.connections["broken"].settled, pilot, timeout=10)
        screen.refresh_rows()
        await pilot.pause()
        table = screen.query_one(DataTable)
        rows = [table.get_row_at(i) for i in range(table.row_count)]
        assert [r[:3] for r in rows] == [
            ["tiny", "connected", "user"], ["broken", "failed", "user"], ["proj", "not trusted", "project"]
        ]
        detail = screen.query_one("#mcp-detail", Static)
        assert "mcp__tiny__add" in str(detail.render())
        await pilot.press("down")
        await pilot.pause()
        assert "mcp-binary" in str(detail.render())
        restarts = manager.connections["broken"].restarts
        await pilot.press("enter")
        await wait_for(lambda: manager.connections["broken"].restarts == restarts + 1, pilot, timeout=10)
        await wait_for(lambda: manager.connections["broken"].settled, pilot, timeout=10)
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.is_running
        # Atomic's own notice about the broken server is a toast; the server's stderr went to its log.
        assert any("broken failed to start" in n.message for n in app._notifications)
        assert "tiny: ready" not in "".join(str(w.render()) for w in app.query(Static))
