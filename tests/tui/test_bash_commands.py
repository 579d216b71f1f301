"""`!command` bash runs typed in the editor: how a cancelled run is shown."""

from __future__ import annotations

from pathlib import Path

from tests.tui.helpers import make_app, type_text, wait_for


async def test_cancelled_silent_bash_command_shows_no_blank_output_line(tmp_path: Path) -> None:
    from atomic.tui.conversation import BashView

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "!sleep 5")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_bash_running, pilot)
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_bash_running, pilot)
        await pilot.pause(0.1)
        view = app.conversation.query_one(BashView)
        assert "cancelled" in str(view._status_widget.render())
        assert view.size.height == 2  # the command and its status, nothing in between

