"""Mouse selection of assistant text, thinking, tool output and code blocks; every copy also writes OSC 52;
Ctrl+C with a selection copies it and never starts quitting; /copy, Ctrl+Y (last reply) and Alt+Y (its code
block) keep working."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from textual.selection import SELECT_ALL
from textual.widget import Widget

from atomic.tui.app import AtomicApp
from atomic.tui.conversation import AssistantText, ThinkingBlock
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, type_text, wait_for

REPLY = {
    "thinking": "Consider the adder first.",
    "text": "Here is the function:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nThat is all.",
}
TOOL = {"toolCalls": [{"name": "bash", "arguments": {"command": "echo tool-output-marker"}}]}


def osc52_writes(app: Any) -> list[str]:
    """Record what the app writes to the terminal (the headless driver writes nowhere)."""
    written: list[str] = []
    app._driver.write = written.append
    return written


def copied(written: list[str]) -> list[str]:
    prefix = "\x1b]52;c;"
    return [base64.b64decode(w[len(prefix) : -1]).decode() for w in written if w.startswith(prefix)]


async def send(pilot: Any, text: str, count: int) -> None:
    app = pilot.app
    await type_text(pilot, text)
    await pilot.press("enter")
    await wait_for(lambda: len(app.engine.messages()) >= count and not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)


def row_of(widget: Widget, needle: str) -> int:
    text = widget.get_selection(SELECT_ALL)
    assert text is not None
    return next(i for i, line in enumerate(text[0].splitlines()) if needle in line)


async def drag(pilot: Any, widget: Widget, start: tuple[int, int], end: tuple[int, int]) -> None:
    await pilot.mouse_down(widget, offset=start)
    await pilot.hover(widget, offset=end)
    await pilot.mouse_up(widget, offset=end)
    await pilot.pause()


async def test_dragging_over_a_code_block_copies_the_code_without_padding(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [REPLY])
    async with app.run_test(size=(80, 30)) as pilot:
        await send(pilot, "show me", 2)
        written = osc52_writes(app)
        reply = app.conversation.query_one(AssistantText)
        first = row_of(reply, "def add")
        await drag(pilot, reply, (0, first), (reply.size.width - 1, first + 1))
        assert app.screen.get_selected_text() == "def add(a, b):\n    return a + b"
        assert app.clipboard == "def add(a, b):\n    return a + b"  # copied on release
        assert copied(written) == ["def add(a, b):\n    return a + b"]
        assert app.focused is app.editor


async def test_double_click_selects_a_reply_or_the_thinking_and_copies_it(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [REPLY])
    async with app.run_test(size=(80, 30)) as pilot:
        await send(pilot, "show me", 2)
        written = osc52_writes(app)
        reply = app.conversation.query_one(AssistantText)
        await pilot.double_click(reply, offset=(2, 0))
        await pilot.pause()
        text = app.screen.get_selected_text()
        assert text is not None and text.startswith("Here is the function:") and text.endswith("That is all.")
        assert "def add(a, b):" in text and "```" not in text  # as shown, not the markdown source
        thinking = app.conversation.query_one(ThinkingBlock).body
        await pilot.double_click(thinking, offset=(2, 0))
        await pilot.pause()
        assert app.screen.get_selected_text() == "Consider the adder first."
        assert copied(written)[-1] == "Consider the adder first."


async def test_tool_output_can_be_selected_and_ctrl_c_copies_without_quitting(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [TOOL, {"text": "Done."}])
    async with app.run_test(size=(80, 30)) as pilot:
        await send(pilot, "run it", 4)
        card = app.conversation.query_one(ToolCard)
        output = next(
            w for w in card.query("*")
            if not w.children and w.display and (w.get_selection(SELECT_ALL) or ("",))[0].strip() == "tool-output-marker"
        )
        await type_text(pilot, "keep me")
        written = osc52_writes(app)
        await pilot.double_click(output, offset=(1, 0))
        await pilot.pause()
        assert "tool-output-marker" in (app.screen.get_selected_text() or "")
        before = len(copied(written))
        await pilot.press("ctrl+c")  # copies; does not clear the editor, does not count towards quitting
        assert app.is_running and app.editor.text == "keep me"
        assert copied(written)[before:] == ["tool-output-marker"]
        assert app.screen.get_selected_text() is None  # copied and deselected, as in a terminal
        # The next Ctrl+C is a first press again: it clears the editor, and does not quit.
        await pilot.press("ctrl+c")
        assert app.is_running and app.editor.text == ""


async def test_copy_command_and_code_key_write_osc52(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [REPLY])
    async with app.run_test(size=(80, 30)) as pilot:
        await send(pilot, "show me", 2)
        written = osc52_writes(app)
        await type_text(pilot, "/copy")
        await pilot.press("enter")
        await wait_for(lambda: bool(copied(written)), pilot)
        assert copied(written) == [app.engine.last_assistant_text()]
        await pilot.press("alt+y")
        assert copied(written)[-1] == "def add(a, b):\n    return a + b"


async def test_ctrl_c_copies_text_selected_in_the_editor(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 30)) as pilot:
        written = osc52_writes(app)
        await type_text(pilot, "hello world")
        await pilot.press("shift+left", "shift+left", "shift+left", "shift+left", "shift+left")
        await pilot.press("ctrl+c")
        assert copied(written) == ["world"]
        assert app.editor.text == "hello world" and app.is_running


REPLY_WITH_CODE = "Use this:\n\n```python\nprint('hi')\n```\n\nDone."


def clipboard_of(app: AtomicApp) -> list[str]:
    texts: list[str] = []
    app.copy_to_clipboard = texts.append  # type: ignore[method-assign]
    return texts


async def test_ctrl_y_copies_the_last_reply_and_alt_y_its_code_block(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": REPLY_WITH_CODE}])
    async with app.run_test(size=(100, 30)) as pilot:
        clipboard = clipboard_of(app)
        await type_text(pilot, "code please")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.last_assistant_text() == REPLY_WITH_CODE, pilot)
        await pilot.press("ctrl+y")
        await wait_for(lambda: len(clipboard) == 1, pilot)
        await pilot.press("alt+y")
        await wait_for(lambda: len(clipboard) == 2, pilot)
        assert clipboard == [REPLY_WITH_CODE, "print('hi')"]



WRAPPING = {
    "text": (
        "Run this command to rebuild everything from scratch before you try the new parser again:\n\n"
        "`uv run python -m build --wheel --outdir dist/wheels/with/a/long/path --no-isolation --verbose`\n\n"
        "- a list item that is long enough to wrap on a terminal that is only sixty columns wide\n\n"
        "See https://example.com/a/very/long/url/that/does/not/fit/on/one/line/of/sixty/columns/at/all\n\n"
        "```python\ndef add(a, b):\n    return a + b\n```"
    )
}


async def test_a_copy_has_no_newlines_where_the_text_was_only_wrapped(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [WRAPPING])
    async with app.run_test(size=(60, 40)) as pilot:
        await send(pilot, "how", 2)
        reply = app.conversation.query_one(AssistantText)
        assert reply.size.height > 10  # it is wrapped on screen
        text = reply.get_selection(SELECT_ALL)
        assert text is not None
        lines = text[0].split("\n")
        assert "Run this command to rebuild everything from scratch before you try the new parser again:" in lines
        assert "uv run python -m build --wheel --outdir dist/wheels/with/a/long/path --no-isolation --verbose" in lines
        assert any(line.endswith("a list item that is long enough to wrap on a terminal that is only sixty columns wide") for line in lines)
        assert "See https://example.com/a/very/long/url/that/does/not/fit/on/one/line/of/sixty/columns/at/all" in lines
        assert "def add(a, b):" in lines and "    return a + b" in lines  # code exactly


def test_soft_breaks_join_wrapped_rows_and_keep_the_rest() -> None:
    from atomic.tui.soft_wrap import join_soft_breaks, soft_breaks

    shown = ["one two", "  three", "", "https://a.example/long", "/path", "│ a │ b │"]
    written = ["one two three", "", "https://a.example/long/path", "| a | b |"]
    joins = soft_breaks(shown, written)
    assert joins == [" ", None, None, "", None]  # the table row does not line up: left as shown
    assert join_soft_breaks("\n".join(shown), 0, joins) == "one two three\n\nhttps://a.example/long/path\n│ a │ b │"
