"""The cheap paths the app relies on to stay fast: key echo without waiting for the frame timer, a
streamed reply that repaints without layout, and incremental rendering that matches a full render."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual import events

from atomic.tui.conversation import AssistantText
from tests.tui.helpers import make_app

MARKDOWN = (
    "# Title\n\nSome *prose* that is long enough to wrap at least once on a narrow terminal, "
    "with `code` and **bold**.\n\n- one\n- two\n  - nested\n\n```python\ndef f(x):\n\n    return x\n```\n\n"
    "| a | b |\n|---|--:|\n| 1 | 2 |\n\nLast line without a blank line after it"
)


async def test_typed_key_is_painted_without_waiting_for_the_frame_timer(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        # With the 60 fps update timer unable to run, only the main screen's own paint can show the key.
        screen._update_timer.pause()
        screen._update_timer.resume = lambda: None  # type: ignore[method-assign]
        shown: list[str] = []
        original = app._display

        def display(target: Any, renderable: Any) -> None:
            original(target, renderable)
            shown.append(app.editor.text)

        app._display = display  # type: ignore[method-assign]
        app.post_message(events.Key("x", "x"))
        for _ in range(100):  # not pilot.pause(): it paints by itself
            if "x" in shown:
                break
            await asyncio.sleep(0.01)
        assert "x" in shown
        assert app.editor.text == "x"


def _rendered(widget: AssistantText) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]


async def test_streamed_markdown_renders_like_the_same_text_rendered_at_once(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(60, 60)) as pilot:
        await pilot.pause()
        streamed = AssistantText(streaming=True)
        whole = AssistantText(MARKDOWN)
        app.conversation.add(streamed)
        app.conversation.add(whole)
        await pilot.pause()
        for start in range(0, len(MARKDOWN), 7):
            streamed.feed(MARKDOWN[start : start + 7])
            if start % 35 == 0:
                await pilot.pause(0.08)  # let some flushes happen mid-block
        streamed.close()
        await pilot.pause()
        assert streamed.size.height == whole.size.height > 10
        assert _rendered(streamed) == _rendered(whole)
        assert "def f(x):" in "\n".join(_rendered(streamed))
        assert _rendered(streamed)[-1].strip() == "Last line without a blank line after it"


async def test_growing_line_repaints_without_a_layout_pass(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        reply = AssistantText("Earlier block.\n\nThe growing", streaming=True)
        app.conversation.add(reply)
        await pilot.pause()
        height = reply.size.height
        calls: list[dict[str, Any]] = []
        original = reply.refresh

        def spy(*regions: Any, **kwargs: Any) -> Any:
            calls.append({"regions": regions, **kwargs})
            return original(*regions, **kwargs)

        reply.refresh = spy  # type: ignore[method-assign]
        reply.feed(" line")  # still fits on the same line
        reply.flush()
        assert calls and not any(call.get("layout") for call in calls)
        assert calls[-1]["regions"], "only the changed lines are repainted"
        await pilot.pause()
        assert reply.size.height == height
        assert _rendered(reply)[-1].strip() == "The growing line"
        reply.feed("\n\nA new paragraph")  # two more lines: the height changes, so a layout is needed
        reply.flush()
        assert calls[-1].get("layout") is True
        await pilot.pause()
        assert reply.size.height == height + 2


def _write_long_session(path: Path, cwd: Path, entries: int) -> None:
    import json

    lines = [json.dumps({"type": "session", "version": 3, "id": "long", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": str(cwd)})]
    parent = None
    for index in range(entries):
        if index % 2 == 0:
            message: dict[str, Any] = {"role": "user", "content": f"Question {index}", "timestamp": 1735689600000 + index}
        else:
            message = {
                "role": "assistant", "content": [{"type": "text", "text": f"Answer {index}\n\nsecond line"}],
                "api": "scripted", "provider": "scripted", "model": "scripted-model", "stopReason": "stop",
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                          "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "timestamp": 1735689600000 + index,
            }
        entry_id = f"e{index:05d}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2025-01-01T00:00:00.000Z", "message": message}))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


async def test_long_session_shows_its_newest_messages_and_loads_older_ones_at_the_top(tmp_path: Path) -> None:
    from atomic.tui.conversation import EarlierMessages, UserMessageView
    from atomic.tui.renderer import HISTORY_PAGE

    cwd = tmp_path / "p"
    cwd.mkdir()
    session_file = tmp_path / "long.jsonl"
    _write_long_session(session_file, cwd, 300)
    app = make_app(cwd, session=str(session_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        conversation = app.conversation
        earlier = conversation.query_one(EarlierMessages)
        first_shown = len(app.renderer.history) - earlier.hidden
        assert 0 < earlier.hidden < 300 and first_shown <= HISTORY_PAGE
        users = list(conversation.query(UserMessageView))
        assert users[-1].text == "Question 298"
        oldest = users[0]
        assert oldest.text == f"Question {earlier.hidden}"
        # Scrolling to the very top mounts the previous page above, and the view stays on what it showed.
        oldest_at_top = oldest.virtual_region.y  # where it shows once scrolled to the top
        conversation.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        await pilot.pause()
        assert earlier.hidden == 300 - first_shown - HISTORY_PAGE
        assert conversation.query(UserMessageView).first().text == f"Question {earlier.hidden}"
        assert conversation.scroll_y > 0
        assert oldest.region.y == conversation.content_region.y + oldest_at_top
        # Clicking the line (here scrolled into view, but not to the very top) loads another page.
        hidden = earlier.hidden
        conversation.scroll_to(y=earlier.virtual_region.y - 1, animate=False, immediate=True)
        await pilot.pause()
        assert earlier.hidden == hidden
        await pilot.click(EarlierMessages)
        await pilot.pause()
        assert earlier.hidden == max(0, hidden - HISTORY_PAGE)
        # Each time the top is reached, the next page comes, until the line goes away.
        for _ in range(10):
            if not conversation.query(EarlierMessages):
                break
            conversation.scroll_to(y=0, animate=False, immediate=True)
            await pilot.pause()
            await pilot.pause()
        assert not conversation.query(EarlierMessages)
        assert conversation.query(UserMessageView).first().text == "Question 0"
        assert len(conversation.query(UserMessageView)) == 150


async def test_ctrl_home_reaches_the_first_message_of_a_resumed_session_in_one_press(tmp_path: Path) -> None:
    from atomic.tui.conversation import EarlierMessages, UserMessageView

    cwd = tmp_path / "p"
    cwd.mkdir()
    session_file = tmp_path / "long.jsonl"
    _write_long_session(session_file, cwd, 300)
    app = make_app(cwd, session=str(session_file))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.conversation.query(EarlierMessages)
        await pilot.press("ctrl+home")
        await pilot.pause(0.2)
        conversation = app.conversation
        first = conversation.query(UserMessageView).first()
        assert first.text == "Question 0"
        assert conversation.scroll_y == 0 and first.region.y >= conversation.content_region.y
        assert not conversation.query(EarlierMessages)
