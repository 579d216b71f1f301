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


async def test_notifications_never_cover_the_editor(tmp_path: Path) -> None:
    from textual.widgets._toast import Toast, ToastRack

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        app.notify("Session exported to:\n/a/very/long/path/that/wraps/over/two/lines/export.html")
        await pilot.pause(0.2)
        rack = app.screen.get_child_by_type(ToastRack)
        toast = rack.query_one(Toast)
        assert toast.region.height > 0
        assert not toast.region.overlaps(app.editor.region)
        assert toast.region.y < app.conversation.region.y + app.conversation.region.height // 2


async def test_the_view_follows_a_first_reply_that_outgrows_the_screen(tmp_path: Path) -> None:
    reply = "\n\n".join(f"Paragraph {index} of a long first answer." for index in range(80))
    app = make_app(tmp_path / "p", [{"text": reply, "chunkSize": 40, "delayMs": 2}])
    async with app.run_test(size=(80, 24)) as pilot:
        await type_text(pilot, "a long answer please")
        await pilot.press("enter")
        await wait_for(lambda: app.conversation.max_scroll_y > 20, pilot)
        await pilot.pause(0.2)
        conversation = app.conversation
        assert conversation.scroll_y >= conversation.max_scroll_y - 8  # following while it streams
        await wait_for(lambda: not app.session.is_streaming, pilot)
        await pilot.pause(0.2)
        assert conversation.scroll_y == conversation.max_scroll_y
        # Scrolled up by the user, the view stays where it was while more arrives.
        conversation.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause()
        app.renderer.note("more output")
        await pilot.pause(0.1)
        assert conversation.scroll_y == 5


async def test_cancelled_silent_bash_command_shows_no_blank_output_line(tmp_path: Path) -> None:
    from atomic.tui.conversation import BashView

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "!sleep 5")
        await pilot.press("enter")
        await wait_for(lambda: app.session.is_bash_running, pilot)
        await pilot.press("escape")
        await wait_for(lambda: not app.session.is_bash_running, pilot)
        await pilot.pause(0.1)
        view = app.conversation.query_one(BashView)
        assert "cancelled" in str(view._status_widget.render())
        assert view.size.height == 2  # the command and its status, nothing in between
