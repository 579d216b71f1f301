"""The to-do panel above the editor: it follows the model's `todo` calls, folds with alt+t, and comes
back with the session."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, submit, wait_for

TODOS = [
    {"content": "read the failing test", "status": "completed"},
    {"content": "fix the parser", "status": "in_progress"},
    {"content": "run the suite", "status": "pending"},
]
SCRIPT = [{"toolCalls": [{"name": "todo", "id": "t1", "arguments": {"todos": TODOS}}]}, {"text": "on it"}]


def panel_text(app: AtomicApp) -> str:
    return str(app.todo_panel.render())


async def test_the_panel_shows_the_list_and_folds(tmp_path: Path) -> None:
    app = make_app(tmp_path / "project", SCRIPT)
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.todo_panel.display or not app.todo_panel.has_class("-active")
        await submit(pilot, "fix the bug")
        await wait_for(lambda: app.todo_panel.has_class("-active"), pilot)
        text = panel_text(app)
        assert "1/3 done" in text and "fix the parser" in text and "run the suite" in text
        await pilot.press("alt+t")
        folded = panel_text(app)
        assert "1/3 done · fix the parser" in folded and "run the suite" not in folded
        await pilot.press("alt+t")
        assert "run the suite" in panel_text(app)


async def test_the_panel_comes_back_when_the_session_is_resumed(tmp_path: Path) -> None:
    first = make_app(tmp_path / "project", SCRIPT, session_dir=str(tmp_path / "sessions"))
    async with first.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "fix the bug")
        await wait_for(lambda: first.todo_panel.has_class("-active") and not first.engine.is_streaming, pilot)
        session_file = first.engine.state().session_file
    assert session_file is not None
    again = make_app(tmp_path / "project", [], session=str(session_file), session_dir=str(tmp_path / "sessions"))
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: again.engine is not None and again.todo_panel.has_class("-active"), pilot)
        assert "fix the parser" in panel_text(again)


def test_todo_panel_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await submit(pilot, "fix the bug")
        await wait_for(lambda: app.todo_panel.has_class("-active") and not app.engine.is_streaming, pilot)
        await pilot.pause(0.2)

    app = make_app(Path(os.environ["HOME"]) / "project", SCRIPT)
    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)
