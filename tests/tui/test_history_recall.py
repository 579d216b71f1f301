"""Up recalls the prompts of a session opened with `atomic -c` or /resume (not only those typed this run)."""

from __future__ import annotations

from pathlib import Path

from atomic.core.messages import UserMessage
from tests.tui.helpers import make_app, type_text, wait_for


async def _send(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    app = pilot.app
    count = sum(isinstance(m, UserMessage) for m in app.engine.messages())
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_for(
        lambda: sum(isinstance(m, UserMessage) for m in app.engine.messages()) == count + 1
        and not app.engine.is_streaming,
        pilot,
    )


async def _recall(pilot, times: int) -> list[str]:  # type: ignore[no-untyped-def]
    seen = []
    for _ in range(times):
        await pilot.press("up")
        seen.append(pilot.app.editor.text)
    return seen


async def test_up_recalls_the_prompts_of_a_continued_session(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    first = make_app(cwd, [{"text": "a"}, {"text": "b"}])
    async with first.run_test(size=(100, 30)) as pilot:
        await _send(pilot, "explain the parser")
        await _send(pilot, "now add tests")
        await pilot.press("!", "e", "c", "h", "o", " ", "h", "i", "enter")
        await wait_for(lambda: not first.engine.is_bash_running and first.engine.messages()[-1].role == "bashExecution", pilot)

    again = make_app(cwd, continue_recent=True)
    async with again.run_test(size=(100, 30)) as pilot:
        assert again.editor.text == ""
        assert await _recall(pilot, 3) == ["!echo hi", "now add tests", "explain the parser"]
        await pilot.press("down")
        assert again.editor.text == "now add tests"


async def test_resume_loads_that_sessions_prompts(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    app = make_app(cwd, [{"text": "a"}, {"text": "b"}, {"text": "c"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await _send(pilot, "old session prompt")
        old_file = app.engine.session_file
        await type_text(pilot, "/new")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.session_file != old_file, pilot)
        await _send(pilot, "new session prompt")
        # Open the first session through the /resume picker.
        await type_text(pilot, "/resume")
        await pilot.press("enter")
        await wait_for(lambda: len(app.screen_stack) == 2, pilot)
        await pilot.press(*"old session")
        await pilot.pause(0.2)
        await pilot.press("enter")
        await wait_for(lambda: app.engine.session_file == old_file, pilot)
        await pilot.pause(0.1)
        # The resumed session's prompt first; what was typed this run in the other session stays behind it.
        assert await _recall(pilot, 4) == ["old session prompt", "/resume", "new session prompt", "/new"]
