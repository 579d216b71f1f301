"""Snapshots of reading, searching and typing (pytest-textual-snapshot), on the scripted provider with a
fixed clock, no cursor blink, and the project folder shown as `~/project`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, wait_for

ANSWER = """The parser reads the file **line by line**:

```python
for line in source.splitlines():
    tokens.extend(lex(line))
```

Then `build_tree(tokens)` checks the nesting and reports the first unbalanced bracket."""
THINKING = "The user asks how parsing works. Explain the two steps."


def project_app(responses: list[dict[str, Any]] | None = None) -> AtomicApp:
    cwd = Path(os.environ["HOME"]) / "project"
    cwd.mkdir(parents=True, exist_ok=True)
    for name in ("README.md", "parser.py", "lexer.py", "tests.py"):
        (cwd / name).write_text("x\n")
    (cwd / "docs").mkdir(exist_ok=True)
    return make_app(cwd, responses)


async def send(pilot: Any, text: str) -> None:
    app = pilot.app
    count = len(app.engine.messages())
    app.editor.insert(text)
    await pilot.press("enter")
    await wait_for(lambda: len(app.engine.messages()) > count and not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)


def long_session() -> list[dict[str, Any]]:
    return [{"text": f"Answer {i}: " + " ".join(f"word{j}" for j in range(40))} for i in range(12)]


class TestMainScreen:
    def test_80x24(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "how does the parser work?")
            pilot.app.editor.insert("and the lexer?")
            await pilot.pause(0.1)

        app = project_app([{"thinking": THINKING, "text": ANSWER, "usage": {"input": 2400, "output": 180}}])
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)

    def test_120x40(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "how does the parser work?")
            pilot.app.editor.insert("and the lexer?")
            await pilot.pause(0.1)

        app = project_app([{"thinking": THINKING, "text": ANSWER, "usage": {"input": 2400, "output": 180}}])
        assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


class TestPopups:
    def test_at_file_popup(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            pilot.app.editor.insert("look at @")
            await pilot.pause(0.2)

        assert snap_compare(project_app(), terminal_size=(80, 24), run_before=run_before)

    def test_slash_command_popup_filtered(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            pilot.app.editor.insert("/re")
            await pilot.pause(0.2)

        assert snap_compare(project_app(), terminal_size=(80, 24), run_before=run_before)


class TestReading:
    def test_hotkeys_over_the_dimmed_conversation(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "how does the parser work?")
            pilot.app.editor.insert("/hotkeys")
            await pilot.press("enter")
            await wait_for(lambda: len(pilot.app.screen_stack) == 2, pilot)
            await pilot.pause(0.2)

        assert snap_compare(project_app([{"text": ANSWER}]), terminal_size=(100, 40), run_before=run_before)

    def test_long_session_scrolled_to_the_middle(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            for i in range(12):
                await send(pilot, f"question {i}")
            conversation = pilot.app.conversation
            conversation.scroll_to(y=conversation.max_scroll_y // 2, animate=False)
            await pilot.pause(0.2)

        assert snap_compare(project_app(long_session()), terminal_size=(80, 24), run_before=run_before)

    def test_find_bar_search(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "how does the parser work?")
            await pilot.press("ctrl+s", *"line", "enter")
            await pilot.pause(0.2)

        assert snap_compare(project_app([{"text": ANSWER}]), terminal_size=(80, 24), run_before=run_before)
