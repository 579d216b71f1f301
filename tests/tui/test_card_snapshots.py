"""Snapshots of each tool card, made by real tool calls of the scripted provider in a temp project
(shown as `~/project`). Deterministic: fixed clock, no cursor blink, fixed call ids and file contents."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, type_text, wait_for

ALL_TOOLS = ["read", "bash", "edit", "write", "grep", "find", "ls"]
MODULE = '''"""Shapes."""

from dataclasses import dataclass


@dataclass
class Circle:
    radius: float

    def area(self) -> float:
        return 3.14159 * self.radius**2
'''


def project() -> Path:
    root = Path(os.environ["HOME"]) / "project"
    (root / "src").mkdir(parents=True, exist_ok=True)
    (root / "src" / "app.py").write_text("import os\n\n# TODO: read the config\nDEBUG = False\n")
    (root / "src" / "util.py").write_text("def helper() -> int:\n    # TODO: cache this\n    return 1\n")
    (root / "README.md").write_text("# Project\n")
    return root


def app_with(*calls: dict[str, Any]) -> AtomicApp:
    script = [{"toolCalls": [dict(c, id=f"call_{i}") for i, c in enumerate(calls, 1)]}, {"text": "Done."}]
    return make_app(project(), script, tools=ALL_TOOLS)


async def run_turn(pilot: Any) -> None:
    app: AtomicApp = pilot.app
    await type_text(pilot, "go")
    await pilot.press("enter")
    await wait_for(lambda: len(app.engine.messages()) >= 4 and not app.engine.is_streaming, pilot, 15)
    await pilot.pause(0.2)


def test_bash_multi_line(snap_compare: Any) -> None:
    command = 'for name in alpha beta; do\n  echo "hello $name"\ndone\necho "all done"'
    app = app_with({"name": "bash", "arguments": {"command": command}})
    assert snap_compare(app, terminal_size=(90, 22), run_before=run_turn)


def test_bash_aborted(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await type_text(pilot, "go")
        await pilot.press("enter")

        def streamed() -> bool:
            found = list(app.conversation.query(ToolCard))
            return bool(found) and "step 2" in str(found[0]._preview.render())

        await wait_for(streamed, pilot, 10)
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming, pilot, 10)
        await pilot.pause(0.2)

    command = "echo 'step 1'\necho 'step 2'\nsleep 30\necho 'never printed'"
    app = make_app(project(), [{"toolCalls": [{"name": "bash", "id": "call_1", "arguments": {"command": command}}]}])
    assert snap_compare(app, terminal_size=(90, 22), run_before=run_before)


def test_write(snap_compare: Any) -> None:
    app = app_with({"name": "write", "arguments": {"path": "src/shapes.py", "content": MODULE}})
    assert snap_compare(app, terminal_size=(90, 24), run_before=run_turn)


def test_write_expanded(snap_compare: Any) -> None:
    app = app_with({"name": "write", "arguments": {"path": "src/shapes.py", "content": MODULE}})
    assert snap_compare(app, terminal_size=(90, 28), run_before=run_turn, press=["ctrl+o"])


def test_edit(snap_compare: Any) -> None:
    edit = {"path": "src/app.py", "oldText": "DEBUG = False", "newText": "DEBUG = True\nVERBOSE = True"}
    app = app_with({"name": "edit", "arguments": edit})
    assert snap_compare(app, terminal_size=(90, 22), run_before=run_turn)


def test_grep(snap_compare: Any) -> None:
    app = app_with({"name": "grep", "arguments": {"pattern": "TODO", "path": "src", "glob": "*.py"}})
    assert snap_compare(app, terminal_size=(90, 20), run_before=run_turn)


def test_find(snap_compare: Any) -> None:
    app = app_with({"name": "find", "arguments": {"pattern": "*.py", "path": "src"}})
    assert snap_compare(app, terminal_size=(90, 20), run_before=run_turn)


def test_ls(snap_compare: Any) -> None:
    app = app_with({"name": "ls", "arguments": {"path": "."}})
    assert snap_compare(app, terminal_size=(90, 20), run_before=run_turn)
