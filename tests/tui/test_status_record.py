"""The footer, the queue panel and the editor's border show the app's status record: a new record is all
it takes to change them, and the engine's events and the commands reach them only that way."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.tui.helpers import make_app, submit, wait_for


async def test_a_new_status_record_repaints_the_chrome(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        assert "release notes" not in str(app.footer.render())
        app.status = replace(app.status, session_name="release notes", steering=("use the new API",),
                             permission_mode="yolo")
        await pilot.pause()
        assert "release notes" in str(app.footer.render())
        assert app.queue_panel.steering == ["use the new API"] and app.queue_panel.has_class("-active")
        assert app.editor.has_class("-yolo")
        app.status = replace(app.status, steering=(), permission_mode="ask")
        await pilot.pause()
        assert not app.queue_panel.has_class("-active")
        assert not app.editor.has_class("-yolo")


async def test_engine_changes_reach_the_record(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await submit(pilot, "/name release notes")
        await wait_for(lambda: app.status.session_name == "release notes", pilot)
        assert "release notes" in str(app.footer.render())
        before = app.status.stats
        await submit(pilot, "hello")
        await wait_for(lambda: app.status.stats != before and not app.engine.is_streaming, pilot)
        assert app.status.stats == app.engine.session_stats()
