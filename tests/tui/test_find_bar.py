"""The find bar (Ctrl+S): matches in the transcript as shown, newest first, highlighted, Esc closes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input

from tests.tui.helpers import make_app, type_text, wait_for

FILLER = "\n\n".join(f"Filler paragraph {i}: " + "words " * 18 for i in range(14))
REPLY = {"text": f"The Needle is here.\n\n{FILLER}\n\nA second needle, and a third NEEDLE.\n\n```python\nneedle = 1\n```"}
THINKING = {"thinking": "Maybe a needle in the thought.", "text": "Short answer."}


async def send(pilot: Any, text: str, count: int) -> None:
    app = pilot.app
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_for(lambda: len(app.engine.messages()) == count and not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)


def count_label(app: Any) -> str:
    return str(app.find_bar.query_one(".find-count").render())


async def test_find_steps_through_matches_highlights_them_and_esc_closes(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [REPLY])
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "find the needle for me", 2)
        conversation = app.conversation
        await pilot.press("ctrl+s")
        assert app.find_bar.is_open and isinstance(app.focused, Input)
        await pilot.press(*"needle")
        # user message 1, reply: "Needle", "needle", "NEEDLE", code "needle": 5 matches, newest shown first.
        assert count_label(app) == "5/5"
        assert app.screen.get_selected_text() == "needle"  # the code block's, highlighted as a selection
        seen = []
        for _ in range(4):
            await pilot.press("enter")  # older
            seen.append((count_label(app), app.screen.get_selected_text()))
        assert seen == [("4/5", "NEEDLE"), ("3/5", "needle"), ("2/5", "Needle"), ("1/5", "needle")]
        # The oldest match is in the user's message at the top: the transcript scrolled up to it.
        assert conversation.scroll_y < conversation.max_scroll_y
        await pilot.press("enter")  # wraps to the newest
        assert count_label(app) == "5/5"
        await pilot.press("shift+enter")  # newer wraps to the oldest
        assert count_label(app) == "1/5"
        await pilot.press("down", "down")
        assert count_label(app) == "3/5"
        await pilot.press("up")
        assert count_label(app) == "2/5"
        await pilot.press("ctrl+s")  # again: older
        assert count_label(app) == "1/5"
        await pilot.press("escape")
        assert not app.find_bar.is_open
        assert app.focused is app.editor and app.screen.get_selected_text() is None
        await pilot.press("o", "k")
        assert app.editor.text == "ok"


async def test_find_reports_no_match_and_skips_collapsed_thinking(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [THINKING])
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "think", 2)
        await pilot.press("ctrl+s", *"needle")
        assert count_label(app) == "1/1"  # in the thinking block, shown expanded
        await pilot.press("escape", "ctrl+t")  # collapse thinking
        await pilot.pause()
        await pilot.press("ctrl+s")
        assert count_label(app) == "no matches"
        assert app.find_bar.has_class("-no-match")


async def test_esc_closes_the_find_bar_before_it_aborts_a_run(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "needle first"}, {"text": "working", "hang": True}])
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "one", 2)
        await type_text(pilot, "two")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        await pilot.press("ctrl+s", *"needle", "escape")
        assert not app.find_bar.is_open and app.engine.is_streaming
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming, pilot)
