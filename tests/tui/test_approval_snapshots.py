"""Snapshots of the approval card: a bash call still in its grace (typing goes to the editor), a write
with its highlighted first lines, an edit with its diff. Real tool calls of the scripted provider."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, type_text, wait_for

MODULE = "".join(f"def step_{n}() -> int:\n    return {n}\n\n" for n in range(1, 16))


def project() -> Path:
    root = Path(os.environ["HOME"]) / "project"
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.py").write_text('import os\n\nDEBUG = False\nPORT = 8080\nHOST = "localhost"\n')
    return root


def app_for(call: dict[str, Any], grace_s: float) -> AtomicApp:
    app = make_app(project(), [{"toolCalls": [dict(call, id="call_1")]}, {"text": "Done."}], permission_mode="ask")
    app.approval_grace_s = grace_s
    return app


def until_card(ready: bool) -> Any:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: app.approver.card is not None and app.approver.card.ready == ready, pilot, 10)
        if not ready:
            await type_text(pilot, "and then")
        await pilot.pause(0.2)

    return run_before


def test_bash_card_in_its_grace(snap_compare: Any) -> None:
    app = app_for({"name": "bash", "arguments": {"command": "rm -rf build && make"}}, grace_s=600)
    assert snap_compare(app, terminal_size=(90, 24), run_before=until_card(ready=False))


def test_write_card(snap_compare: Any) -> None:
    app = app_for({"name": "write", "arguments": {"path": "steps.py", "content": MODULE}}, grace_s=0.05)
    assert snap_compare(app, terminal_size=(90, 40), run_before=until_card(ready=True))


def test_edit_card(snap_compare: Any) -> None:
    args = {"path": "config.py", "edits": [{"oldText": "DEBUG = False", "newText": "DEBUG = True"}]}
    app = app_for({"name": "edit", "arguments": args}, grace_s=0.05)
    assert snap_compare(app, terminal_size=(90, 30), run_before=until_card(ready=True))
