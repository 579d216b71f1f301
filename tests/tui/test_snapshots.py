"""Snapshots of the app (pytest-textual-snapshot). Deterministic: fixed clock, no cursor blink, scripted
provider with fixed ids, agent dir and HOME in temp folders, the project folder shown as `~/project`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, wait_for

REPLY = """Here is the plan:

1. Read the file
2. **Fix** the bug

```python
def add(a: int, b: int) -> int:
    return a + b
```

| tool | purpose |
|------|---------|
| read | look at files |
| edit | change them |
"""

DIFF = "   1 import os\n-  2 x = 1\n+  2 x = 2\n   3 print(x)\n   ...\n+ 10 print('done')"


def project_app(responses: list[dict[str, Any]] | None = None) -> AtomicApp:
    return make_app(Path(os.environ["HOME"]) / "project", responses)


async def send(pilot: Any, text: str) -> None:
    app = pilot.app
    app.editor.insert(text)
    await pilot.press("enter")
    await wait_for(lambda: not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)


class TestStart:
    def test_empty_start(self, snap_compare: Any) -> None:
        assert snap_compare(project_app(), terminal_size=(100, 30))

    def test_light_theme(self, snap_compare: Any, agent_dir: Path) -> None:
        (agent_dir / "settings.json").write_text(json.dumps({"theme": "light"}))

        async def run_before(pilot: Any) -> None:
            await send(pilot, "hello")

        assert snap_compare(project_app([{"text": REPLY}]), terminal_size=(100, 40), run_before=run_before)


class TestConversation:
    def test_streamed_reply_with_code_and_table(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "explain")

        reply = {"text": REPLY, "chunkSize": 7, "usage": {"input": 1200, "output": 340}}
        assert snap_compare(project_app([reply]), terminal_size=(100, 40), run_before=run_before)

    def test_thinking_expanded(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "think")

        reply = {"thinking": "The user wants a short answer.\nKeep it brief.", "text": "Short answer."}
        assert snap_compare(project_app([reply]), terminal_size=(100, 24), run_before=run_before)

    def test_thinking_collapsed(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "think")

        reply = {"thinking": "The user wants a short answer.\nKeep it brief.", "text": "Short answer."}
        assert snap_compare(
            project_app([reply]), terminal_size=(100, 24), run_before=run_before, press=["ctrl+t"]
        )


def _tool_cards(pilot: Any) -> None:
    renderer = pilot.app.renderer
    renderer.on_tool_start  # noqa: B018 - the calls below build one card per state
    renderer._card("call_1", "read", {"path": "src/app.py"})
    renderer.on_tool_start("call_2", "bash", {"command": "pytest -q"})
    renderer.on_tool_update("call_2", "bash", None, {"content": [{"type": "text", "text": "collecting...\n3 passed"}]})
    renderer.on_tool_start("call_3", "ls", {"path": "."})
    lines = "\n".join(f"file_{i}.py" for i in range(12))
    renderer.on_tool_end("call_3", "ls", {"content": [{"type": "text", "text": lines}]}, False)
    renderer.on_tool_start("call_4", "bash", {"command": "false"})
    renderer.on_tool_end(
        "call_4", "bash", {"content": [{"type": "text", "text": "(no output)\n\nCommand exited with code 1"}]}, True
    )


class TestToolCards:
    def test_each_state(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            _tool_cards(pilot)
            await pilot.pause(0.1)

        assert snap_compare(project_app(), terminal_size=(100, 36), run_before=run_before)

    def test_each_state_expanded(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            _tool_cards(pilot)
            await pilot.pause(0.1)

        assert snap_compare(project_app(), terminal_size=(100, 44), run_before=run_before, press=["ctrl+o"])

    def test_edit_diff(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            renderer = pilot.app.renderer
            renderer.on_tool_start("call_9", "edit", {"path": "src/x.py"})
            result = {"content": [{"type": "text", "text": "Edited src/x.py"}], "details": {"diff": DIFF}}
            renderer.on_tool_end("call_9", "edit", result, False)
            await pilot.pause(0.1)

        assert snap_compare(project_app(), terminal_size=(100, 24), run_before=run_before)


class TestChrome:
    def test_queue_panel_while_working(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            app = pilot.app
            app.working.start()
            app.queue_panel.set_queue(["use the new API instead"], ["then update the docs"])
            app.editor.insert("typing more…")
            await pilot.pause(0.1)

        assert snap_compare(project_app(), terminal_size=(100, 24), run_before=run_before)

    def test_slash_popup(self, snap_compare: Any) -> None:
        assert snap_compare(project_app(), terminal_size=(100, 30), press=["/"])

    def test_footer_80_columns(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "hello")
            pilot.app.engine.sessions.set_session_name("refactor")
            await pilot.pause(0.1)

        reply = {"text": "Hi.", "usage": {"input": 150000, "output": 2000, "cacheRead": 1200}}
        assert snap_compare(project_app([reply]), terminal_size=(80, 16), run_before=run_before)

    def test_footer_120_columns(self, snap_compare: Any) -> None:
        async def run_before(pilot: Any) -> None:
            await send(pilot, "hello")
            await pilot.pause(0.1)

        reply = {"text": "Hi.", "usage": {"input": 185000, "output": 2000}}
        assert snap_compare(project_app([reply]), terminal_size=(120, 16), run_before=run_before)
