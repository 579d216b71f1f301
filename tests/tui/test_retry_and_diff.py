"""/retry sends the last prompt again, Up then Enter edits and resends it, /diff shows what the session
changed in the files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.tui.session_commands import SessionDiffView
from tests.tui.helpers import make_app, submit, user_texts, wait_for


def idle_after(app: Any, replies: int) -> Any:
    from atomic.core.messages import AssistantMessage

    return lambda: not app.engine.is_streaming and sum(isinstance(m, AssistantMessage) for m in app.engine.messages()) >= replies


async def test_retry_sends_the_last_prompt_again(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "first"}, {"text": "second"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "explain the parser")
        await wait_for(idle_after(app, 1), pilot)
        await submit(pilot, "/retry")
        await wait_for(idle_after(app, 2), pilot)
    assert user_texts(app) == ["explain the parser", "explain the parser"]


async def test_up_then_enter_resends_the_last_prompt(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "first"}, {"text": "second"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "run the tests")
        await wait_for(idle_after(app, 1), pilot)
        await pilot.press("up")
        assert app.editor.text == "run the tests"
        await pilot.press("enter")
        await wait_for(idle_after(app, 2), pilot)
    assert user_texts(app) == ["run the tests", "run the tests"]


async def test_diff_shows_the_files_the_session_changed(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    (cwd / "app.py").write_text("DEBUG = False\nPORT = 80\n")
    calls = [
        {"name": "edit", "arguments": {"path": "app.py", "oldText": "DEBUG = False", "newText": "DEBUG = True"}, "id": "c1"},
        {"name": "write", "arguments": {"path": "notes.md", "content": "one\ntwo\n"}, "id": "c2"},
    ]
    app = make_app(cwd, [{"toolCalls": calls}, {"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/diff")
        await pilot.pause(0.1)
        assert "No file was written or edited" in str(app.conversation.children[-1].render())
        await submit(pilot, "change things")
        await wait_for(idle_after(app, 2), pilot)
        await submit(pilot, "/diff")
        await wait_for(lambda: bool(app.conversation.query(SessionDiffView)), pilot)
        report = str(app.conversation.query_one(SessionDiffView).render())
    assert "Files changed in this session: 2" in report
    assert "app.py" in report and "-1 DEBUG = False" in report and "+1 DEBUG = True" in report
    assert "notes.md" in report and "written (2 lines)" in report
