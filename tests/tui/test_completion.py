"""The slash and @ completion popup: context detection, fuzzy ranking, extension command arguments, and
Enter after fast typing."""

from __future__ import annotations

from pathlib import Path

from atomic.core.contract import CommandInfo
from atomic.tui.completion import find_context, fuzzy_score, list_project_files
from tests.tui.helpers import behind, make_app, type_text


def test_completion_context_and_ranking(tmp_path: Path) -> None:
    assert find_context("/mo", 0, 3).kind == "slash"
    assert find_context("/model x", 0, 8) is None
    ctx = find_context("look at @src/ap", 0, 15)
    assert ctx is not None and ctx.kind == "file" and ctx.query == "src/ap" and ctx.start == (0, 8)
    assert fuzzy_score("mdl", "model") is not None and fuzzy_score("zz", "model") is None
    assert fuzzy_score("mod", "model") > fuzzy_score("mod", "some_module_thing")
    (tmp_path / "keep.py").write_text("")
    (tmp_path / "skip.log").write_text("")
    (tmp_path / ".gitignore").write_text("*.log\n")
    assert "keep.py" in list_project_files(tmp_path) and "skip.log" not in list_project_files(tmp_path)



async def test_extension_command_arguments_are_completed(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:

        class FakeExtensions:
            def commands(self) -> list[CommandInfo]:
                return [CommandInfo("deploy", "Deploy somewhere", "extension", None)]

            def complete_command(self, name: str, prefix: str) -> list[str]:
                return [v for v in ("staging", "production") if v.startswith(prefix)] if name == "deploy" else []

        behind(app).extensions = FakeExtensions()
        await type_text(pilot, "/deploy st")
        assert app.completion.is_open
        assert [i.value for i in app.completion.items] == ["staging"]
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text == "/deploy staging "



async def test_enter_after_fast_typing_never_applies_a_stale_completion(tmp_path: Path) -> None:
    from textual import events

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        assert app.completion.is_open  # every command, for the prefix "/"
        # The rest at once, as tmux send-keys or a fast typist delivers it: the Changed events that
        # update the popup are handled after the keys, so Enter meets the popup made for "/".
        for char in "session":
            app.post_message(events.Key(char, char))
        app.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await pilot.pause()
        # "/session" is a complete command: Enter ran it (before the fix: the editor read "/model session").
        assert "/model" not in app.editor.text
        assert app.editor.text == ""
        assert any("Session" in str(note.text) or "session" in str(note.text).lower()
                   for note in app.conversation.query("NoteMessage"))

