"""Extension UI in the terminal: real dialogs, status-line entries, widgets above the editor, the title."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input, TextArea

from atomic.tui.screens.extension_dialogs import ConfirmDialog, EditorDialog, InputDialog, SelectDialog
from tests.conftest import ROOT
from tests.support import write_extension
from tests.tui.helpers import behind, make_app, submit, type_text, wait_for

EXAMPLE = ROOT / "examples" / "extensions" / "ask_first.py"

ASKING = """
    RESULTS = []

    def activate(atomic):
        async def ask(args, ctx):
            timeout = float(args) if args else None
            RESULTS.append(await ctx.ui.confirm("Deploy?", "to production", timeout=timeout))

        async def pick(args, ctx):
            RESULTS.append(await ctx.ui.select("Target", ["staging", "production"]))

        atomic.register_command("ask", ask)
        atomic.register_command("pick", pick)
"""


def results_of(app: Any, path: Path) -> list[Any]:
    for loaded in behind(app).extensions.extensions:
        if Path(loaded.path) == path.resolve():
            return list(loaded.module.RESULTS)
    raise AssertionError("extension not loaded")


async def test_confirm_is_a_modal_dialog_answered_with_keys(tmp_path: Path) -> None:
    path = write_extension(tmp_path, "asking.py", ASKING)
    app = make_app(tmp_path / "p", extensions=[str(path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/ask")
        await wait_for(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        assert app.screen.dialog_title == "Deploy?"
        await pilot.press("y")
        await wait_for(lambda: results_of(app, path) == [True], pilot)
        assert not isinstance(app.screen, ConfirmDialog)
        await submit(pilot, "/ask")
        await wait_for(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        await pilot.press("down", "enter")  # "No"
        await wait_for(lambda: results_of(app, path) == [True, False], pilot)
        await submit(pilot, "/ask")
        await wait_for(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        await pilot.press("escape")
        await wait_for(lambda: results_of(app, path) == [True, False, False], pilot)
        assert behind(app).extension_ui.pending_ids() == []


async def test_a_timed_out_dialog_closes_itself(tmp_path: Path) -> None:
    path = write_extension(tmp_path, "asking.py", ASKING)
    app = make_app(tmp_path / "p", extensions=[str(path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/ask 1.0")  # a window wide enough to see the dialog on a loaded machine
        await wait_for(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        await wait_for(lambda: results_of(app, path) == [False], pilot)
        await wait_for(lambda: not isinstance(app.screen, ConfirmDialog), pilot)
        # The editor is usable again.
        await type_text(pilot, "hello")
        assert app.editor.text == "hello"


async def test_abort_closes_an_open_dialog(tmp_path: Path) -> None:
    path = write_extension(tmp_path, "asking.py", ASKING)
    app = make_app(tmp_path / "p", extensions=[str(path)])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "/pick")
        await wait_for(lambda: isinstance(app.screen, SelectDialog), pilot)
        await app.engine.abort()
        await wait_for(lambda: results_of(app, path) == [None], pilot)
        await wait_for(lambda: not isinstance(app.screen, SelectDialog), pilot)


async def test_example_note_command_select_input_editor_status_widget_title(tmp_path: Path) -> None:
    app = make_app(tmp_path / "project", extensions=[str(EXAMPLE)])
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.title == "atomic · project"  # set at startup, before the UI attached
        await submit(pilot, "/note")
        await wait_for(lambda: isinstance(app.screen, SelectDialog), pilot)
        await pilot.press("down", "enter")  # idea
        await wait_for(lambda: isinstance(app.screen, InputDialog), pilot)
        assert app.screen.query_one(Input).placeholder == "one line"
        await pilot.press(*"cache it", "enter")
        await wait_for(lambda: isinstance(app.screen, EditorDialog), pilot)
        editor = app.screen.query_one(TextArea)
        assert editor.text == "idea: cache it\n"
        editor.insert("in memory")
        await pilot.press("ctrl+s")
        await wait_for(lambda: app.extension_widgets.widgets == {"notes": ["• idea: cache it"]}, pilot)
        assert app.extension_widgets.display
        assert app.footer.extension_statuses == {"notes": "notes: 1"}
        assert "notes: 1" in str(app.footer.render())
        entry = behind(app).store.path_to()[-1].data
        assert entry["data"] == {"kind": "idea", "text": "cache it", "details": "idea: cache it\nin memory"}
        shown = [n.message for n in app._notifications]
        assert "Saved idea #1" in shown


async def test_a_risky_tool_call_asks_and_escape_blocks_it(tmp_path: Path) -> None:
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sudo rm -rf /tmp/nothing-here"}}]},
        {"text": "ok"},
    ]
    app = make_app(tmp_path / "p", script, extensions=[str(EXAMPLE)])
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "clean")
        await wait_for(lambda: isinstance(app.screen, ConfirmDialog), pilot)
        assert app.screen.message == "sudo rm -rf /tmp/nothing-here"
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming and len(app.engine.messages()) == 4, pilot)
        result = app.engine.messages()[2]
        assert result.is_error and "did not allow" in result.content[0].text
