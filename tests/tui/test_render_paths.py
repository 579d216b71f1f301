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
