"""Bugs found by using the app in a real terminal, each pinned by a pilot test."""

from __future__ import annotations

from pathlib import Path

from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, type_text, wait_for


async def test_ctrl_o_expands_and_collapses_tool_output(tmp_path: Path) -> None:
    command = {"toolCalls": [{"name": "bash", "arguments": {"command": "seq 1 12; exit 3"}}]}
    app = make_app(tmp_path / "p", [command, {"text": "done"}])
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: not app.session.is_streaming and bool(app.conversation.query(ToolCard)), pilot)
        await pilot.pause()
        card = app.conversation.query_one(ToolCard)
        collapsed_height = card.outer_size.height
        assert card._preview.display and not card._full.display
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert card._full.display and not card._preview.display
        assert card.outer_size.height > collapsed_height  # all 12 lines and the exit line show
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert card._preview.display and not card._full.display
        assert card.outer_size.height == collapsed_height
