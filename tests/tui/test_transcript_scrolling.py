"""Reading a long transcript from the keyboard, following the reply (after sending while scrolled up, and a
first reply that outgrows the screen), and a short conversation starting at the top."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.messages import AssistantMessage
from atomic.tui.conversation import StartupHeader
from tests.tui.helpers import make_app, type_text, wait_for

LONG_REPLY = {"text": "\n\n".join(f"Paragraph {i}: " + "words " * 20 for i in range(20))}
STREAMED = {"text": "\n\n".join(f"Line {i} of the answer." for i in range(40)), "chunkSize": 12, "delayMs": 15}


async def long_transcript(pilot: Any) -> None:
    app = pilot.app
    await type_text(pilot, "tell me a lot")
    await pilot.press("enter")
    await wait_for(lambda: len(app.engine.messages()) == 2 and not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)
    assert app.conversation.max_scroll_y > 20


async def test_page_keys_scroll_the_transcript_and_the_editor_keeps_typing(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [LONG_REPLY])
    async with app.run_test(size=(80, 24)) as pilot:
        await long_transcript(pilot)
        conversation = app.conversation
        bottom = conversation.max_scroll_y
        assert conversation.scroll_y == bottom
        await pilot.press("pageup")
        first = conversation.scroll_y
        assert 0 < first < bottom
        await pilot.press("pageup")
        assert conversation.scroll_y < first
        await pilot.press("pagedown")
        assert conversation.scroll_y == first
        await pilot.press("ctrl+home")
        assert conversation.scroll_y == 0
        await pilot.press("h", "i")
        assert app.editor.text == "hi" and app.focused is app.editor
        await pilot.press("ctrl+end")
        assert conversation.scroll_y == conversation.max_scroll_y


async def test_sending_while_scrolled_up_jumps_to_the_bottom_and_follows(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [LONG_REPLY, STREAMED])
    async with app.run_test(size=(80, 24)) as pilot:
        await long_transcript(pilot)
        conversation = app.conversation
        conversation.scroll_to(y=0, animate=False)  # as the mouse wheel does
        await pilot.pause()
        assert conversation.scroll_y == 0
        await type_text(pilot, "and more")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        at_bottom: list[bool] = []
        while app.engine.is_streaming:
            await pilot.pause(0.05)
            at_bottom.append(conversation.scroll_y >= conversation.max_scroll_y - 1)
        await pilot.pause(0.2)
        assert len(at_bottom) > 3 and all(at_bottom)
        assert isinstance(app.engine.messages()[-1], AssistantMessage)
        assert conversation.scroll_y == conversation.max_scroll_y
        # The end of the reply is on screen.
        assert "Line 39 of the answer." in conversation.children[-1].get_selection(_all())[0]


def _all() -> Any:
    from textual.selection import SELECT_ALL

    return SELECT_ALL


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
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause(0.2)
        assert conversation.scroll_y == conversation.max_scroll_y
        # Scrolled up by the user, the view stays where it was while more arrives.
        conversation.scroll_to(y=5, animate=False, immediate=True)
        await pilot.pause()
        app.renderer.note("more output")
        await pilot.pause(0.1)
        assert conversation.scroll_y == 5



async def test_short_conversation_starts_at_the_top(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        header = app.conversation.query_one(StartupHeader)
        assert header.region.y == app.conversation.region.y
        for index in range(20):
            app.renderer.note(f"line {index}")
        await pilot.pause()
        await pilot.pause()
        assert app.conversation.scroll_y == app.conversation.max_scroll_y > 0

