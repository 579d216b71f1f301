"""/rewind, /undo, Esc twice, and /tree and /fork offering to restore files, through the real app
on the scripted provider: files come back, the conversation moves only when asked, and the
transcript says what was restored and how to undo it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from atomic.tui.conversation import NoteMessage
from tests.tui.helpers import make_app, wait_for
from tests.tui.test_slash_commands import closed, open_screen, run_command

SCRIPT = [
    {"match": "first", "toolCalls": [{"name": "bash", "arguments": {"command": "echo one > a.txt"}}]},
    {"match": "first", "text": "did one"},
    {"match": "second", "toolCalls": [{"name": "bash", "arguments": {"command": "echo two > a.txt; echo b > b.txt"}}]},
    {"match": "second", "text": "did two"},
]


async def two_prompts(pilot: Any) -> None:
    app = pilot.app
    for text in ("first prompt", "second prompt"):
        wanted = len(app.engine.messages()) + 4  # prompt, tool call, result, reply
        await run_command(pilot, text)
        await wait_for(lambda n=wanted: len(app.engine.messages()) >= n and not app.engine.is_streaming, pilot)


def notes(app: Any) -> list[str]:
    return [n.text for n in app.conversation.query(NoteMessage)]


async def pick(pilot: Any, option_id: str) -> None:
    option_list = pilot.app.screen.query_one(OptionList)
    index = next(i for i, o in enumerate(option_list.options) if o.id == option_id)
    option_list.highlighted = index
    await pilot.pause()
    await pilot.press("enter")


def project_with_a(tmp_path: Path) -> Path:
    """A project folder holding `a.txt` ("zero"), which the script's prompts change."""
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.txt").write_text("zero\n")
    return project


async def rewind_to_newest(pilot: Any, app: Any) -> None:
    """/rewind, Enter on the newest prompt of the branch, then wait for the four choices."""
    picker = await open_screen(pilot, "/rewind", "RewindScreen")
    await pilot.press("enter")
    await closed(pilot, picker)
    await wait_for(lambda: type(app.screen).__name__ == "RestoreChoiceScreen", pilot)


async def test_rewind_code_only_restores_files_and_keeps_the_conversation(tmp_path: Path) -> None:
    project = project_with_a(tmp_path)
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        messages = len(app.engine.messages())
        picker = await open_screen(pilot, "/rewind", "RewindScreen")
        labels = [str(o.prompt) for o in picker.query_one(OptionList).options]
        assert "first prompt" in labels[0] and "1 file changed" in labels[0]
        assert "second prompt" in labels[1] and "2 files changed" in labels[1]
        await pilot.press("up", "enter")  # the newest is highlighted; go to the first prompt
        await closed(pilot, picker)
        await wait_for(lambda: type(app.screen).__name__ == "RestoreChoiceScreen", pilot)
        choice = app.screen
        info = str(choice.query_one(".panel-info").render())
        assert "a.txt" in info and "b.txt" in info
        await pick(pilot, "code")
        await closed(pilot, choice)
        await wait_for(lambda: (project / "a.txt").read_text() == "zero\n", pilot)
        assert not (project / "b.txt").exists()
        assert len(app.engine.messages()) == messages
        await wait_for(lambda: any("Restored 2 files" in n for n in notes(app)), pilot)
        assert any("/rewind undo" in n for n in notes(app))

        await run_command(pilot, "/rewind undo")
        await wait_for(lambda: (project / "a.txt").read_text() == "two\n", pilot)
        assert (project / "b.txt").read_text() == "b\n"


async def test_rewind_code_and_conversation_and_conversation_only(tmp_path: Path) -> None:
    project = project_with_a(tmp_path)
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        await rewind_to_newest(pilot, app)  # the second prompt
        await pick(pilot, "conversation")
        await wait_for(lambda: app.editor.text == "second prompt", pilot)
        assert (project / "a.txt").read_text() == "two\n"
        assert [m.role for m in app.engine.messages()].count("user") == 1

        app.editor.clear_all()
        await rewind_to_newest(pilot, app)  # now the first prompt is the newest on the branch
        await pick(pilot, "both")
        await wait_for(lambda: app.editor.text == "first prompt", pilot)
        assert (project / "a.txt").read_text() == "zero\n"
        assert app.engine.messages() == []


async def test_undo_restores_the_last_prompts_files_and_puts_it_back_in_the_editor(tmp_path: Path) -> None:
    project = project_with_a(tmp_path)
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        await run_command(pilot, "/undo")
        await wait_for(lambda: app.editor.text == "second prompt", pilot)
        assert (project / "a.txt").read_text() == "one\n" and not (project / "b.txt").exists()
        assert any("Restored 2 files to before “second prompt”" in n for n in notes(app))


async def test_escape_twice_on_an_empty_editor_opens_rewind(tmp_path: Path) -> None:
    project = tmp_path / "p"
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        # The test clock stands still: the two presses are as close together as can be.
        await pilot.press("escape", "escape")
        await wait_for(lambda: type(app.screen).__name__ == "RewindScreen", pilot)


async def test_tree_offers_to_restore_files(tmp_path: Path) -> None:
    project = project_with_a(tmp_path)
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        screen = await open_screen(pilot, "/tree", "TreeScreen")
        rows = screen.rows  # type: ignore[attr-defined]
        second = next(r for r in rows if r.text == "user: second prompt")
        screen.query_one("#tree-list").highlighted = rows.index(second)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await closed(pilot, screen)
        await wait_for(lambda: type(app.screen).__name__ == "RestoreChoiceScreen", pilot)
        await pick(pilot, "both")
        await wait_for(lambda: app.editor.text == "second prompt", pilot)
        assert (project / "a.txt").read_text() == "one\n"
        assert any("Restored" in n for n in notes(app))


async def test_fork_offers_to_restore_files_and_can_keep_them(tmp_path: Path) -> None:
    project = project_with_a(tmp_path)
    app = make_app(project, SCRIPT)
    async with app.run_test(size=(110, 34)) as pilot:
        await two_prompts(pilot)
        old = app.engine.session_file
        screen = await open_screen(pilot, "/fork", "ForkPickerScreen")
        await pilot.press("enter")  # the newest message
        await closed(pilot, screen)
        await wait_for(lambda: type(app.screen).__name__ == "RestoreChoiceScreen", pilot)
        await pick(pilot, "conversation")
        await wait_for(lambda: app.engine.session_file != old, pilot)
        assert (project / "a.txt").read_text() == "two\n"
