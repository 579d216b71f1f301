"""A live session that goes on: its oldest turns fold into the "earlier messages" pager (so each turn costs
the same), without moving the view, and scrolling up, Ctrl+Home and find still reach every message;
after `atomic -c` Ctrl+Home reaches the first message in one press."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.tui import renderer
from atomic.tui.conversation import EarlierMessages, UserMessageView
from atomic.tui.find_bar import find_matches
from tests.tui.helpers import make_app, submit, wait_for

TURNS = 12


@pytest.fixture(autouse=True)
def small_limits(monkeypatch: Any) -> None:
    monkeypatch.setattr(renderer, "LIVE_WIDGET_LIMIT", 10)
    monkeypatch.setattr(renderer, "LIVE_WIDGETS_KEPT", 6)


def replies() -> list[dict[str, Any]]:
    return [{"text": f"Reply number {n}.\n\n" + "filler line\n\n" * 6} for n in range(1, TURNS + 1)]


async def run_turns(app: Any, pilot: Any, count: int = TURNS) -> None:
    for n in range(1, count + 1):
        await submit(pilot, f"question {n}")
        expected = f"Reply number {n}."
        await wait_for(lambda text=expected: not app.engine.is_streaming and app.engine.last_assistant_text().startswith(text), pilot)
        await pilot.pause(0.05)


def shown_questions(app: Any) -> list[str]:
    return [w.text for w in app.conversation.query(UserMessageView)]


async def test_old_turns_fold_away_and_come_back_from_the_top(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", replies())
    async with app.run_test(size=(80, 24)) as pilot:
        await run_turns(app, pilot)
        children = list(app.conversation.children)
        assert len(children) <= 10 + 2
        assert isinstance(children[0], EarlierMessages)
        assert shown_questions(app)[-1] == f"question {TURNS}" and "question 1" not in shown_questions(app)
        assert app.conversation.is_following()
        await pilot.press("ctrl+home")
        await pilot.pause(0.2)
        assert shown_questions(app) == [f"question {n}" for n in range(1, TURNS + 1)]
        assert app.conversation.scroll_y == 0


async def test_nothing_folds_while_the_user_reads_above(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", replies())
    async with app.run_test(size=(80, 24)) as pilot:
        await run_turns(app, pilot, 4)
        await pilot.press("pageup")
        top = app.conversation.scroll_y
        for n in range(5, 9):
            await app.engine.prompt(f"question {n}")
            await app.engine.wait_idle()
            await pilot.pause(0.05)
        assert not app.conversation.query(EarlierMessages)
        assert app.conversation.scroll_y == top
        assert "question 1" in shown_questions(app)


async def test_find_reaches_folded_turns(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", replies())
    async with app.run_test(size=(80, 24)) as pilot:
        await run_turns(app, pilot)
        assert not find_matches(app.conversation, "Reply number 1.")
        await pilot.press("ctrl+s")
        for key in "number 1.":
            await pilot.press("space" if key == " " else "full_stop" if key == "." else key)
        await pilot.pause(0.1)
        assert "more above" in str(app.find_bar.query_one(".find-count").render())
        for _ in range(3):
            await pilot.press("enter")
            await pilot.pause(0.2)
        current = app.find_bar.current
        assert current is not None
        selected = current.widget.get_selection(current.selection)
        assert selected is not None and selected[0].lower() == "number 1."
        assert "question 1" in shown_questions(app)
