"""`@` in the editor completes the resources MCP servers list (`@server:uri`), before the files."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.conftest import tiny
from tests.tui.helpers import make_app, type_text, wait_for


async def test_at_completes_a_servers_resources(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "tinyfile.txt").write_text("x")
    app = make_app(cwd, [], mcp_servers=[tiny()])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.engine is not None and app.session_ready, pilot)
        await wait_for(lambda: bool(app.engine.mcp.resource_mentions()), pilot, timeout=60)
        await type_text(pilot, "read @tiny:notes")
        await wait_for(lambda: app.completion.is_open, pilot)
        labels = [item.label for item in app.completion.items]
        assert labels[0] == "@tiny:tiny://notes/today"
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text.startswith("read @tiny:tiny://notes/today")
