"""Editor keys that keep a draft safe and reach for the terminal: Ctrl+C clears a draft that Up and Ctrl+Z
bring back, Ctrl+C interrupts a working agent (a second press quits), Ctrl+Z with nothing to undo
suspends, Ctrl+G edits the draft in $VISUAL / $EDITOR."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.tui import external_editor
from tests.tui.helpers import make_app, submit, type_text, wait_for

SLOW = {"text": "slow " * 200, "chunkSize": 4, "delayMs": 20}


async def test_a_draft_cleared_by_ctrl_c_comes_back_with_up(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "a long draft I still want")
        await pilot.press("ctrl+c")
        assert app.editor.text == "" and app.is_running
        await pilot.press("up")
        assert app.editor.text == "a long draft I still want"


async def test_a_draft_cleared_by_ctrl_c_comes_back_with_ctrl_z(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    suspended: list[bool] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_suspend_process = lambda: suspended.append(True)  # type: ignore[method-assign]
        await type_text(pilot, "draft to undo")
        await pilot.press("ctrl+c")
        assert app.editor.text == ""
        await pilot.press("ctrl+z")
        assert app.editor.text == "draft to undo"
        assert suspended == []


async def test_ctrl_z_with_nothing_to_undo_suspends(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    suspended: list[bool] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.action_suspend_process = lambda: suspended.append(True)  # type: ignore[method-assign]
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert suspended == [True] and app.is_running


async def test_ctrl_c_interrupts_a_working_agent_and_a_second_press_quits(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [SLOW])
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await submit(pilot, "go")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        await pilot.press("ctrl+c")
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        assert app.is_running
        assert "Interrupted · press ctrl+c again to quit" in [n.message for n in app._notifications]
        await pilot.press("ctrl+c")  # the fixed test clock: within the second
        await pilot.pause()
    assert app.return_code == 0


async def test_ctrl_g_edits_the_draft_in_the_external_editor(tmp_path: Path, monkeypatch: Any) -> None:
    seen: list[tuple[list[str], str]] = []

    def fake_editor(command: list[str], path: Path) -> int:
        seen.append((command, path.read_text()))
        path.write_text("rewritten in my editor\nsecond line\n")
        return 0

    monkeypatch.setenv("VISUAL", "myedit --wait")
    monkeypatch.setattr(external_editor, "run_editor", fake_editor)
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "first try")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert seen == [(["myedit", "--wait"], "first try")]
        assert app.editor.text == "rewritten in my editor\nsecond line"


async def test_a_failing_external_editor_leaves_the_draft(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(external_editor, "run_editor", lambda command, path: 1)
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "keep me")
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert app.editor.text == "keep me"
