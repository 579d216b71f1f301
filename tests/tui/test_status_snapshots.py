"""Snapshots of what the app says about itself: the welcome screen without a key, provider errors, a retry
countdown, compaction in progress and its result. Deterministic: fixed clock, no cursor blink, temp HOME."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from atomic.core.engine.options import SessionOptions
from atomic.tui.app import AtomicApp
from atomic.tui.conversation import NoteMessage
from tests.tui.helpers import make_app, type_text, wait_for

BAD_REQUEST = '400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be at most 8192"}}'
OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
LONG = "\n".join(f"detail line {i}" for i in range(30))


def project() -> Path:
    root = Path(os.environ["HOME"]) / "project"
    root.mkdir(parents=True, exist_ok=True)
    return root


async def send(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")


def test_welcome_without_a_key(snap_compare: Any) -> None:
    app = AtomicApp(SessionOptions(cwd=project()), clock=lambda: 0.0, cursor_blink=False)
    assert snap_compare(app, terminal_size=(100, 44))


def _error_app() -> AtomicApp:
    return make_app(project(), [{"error": BAD_REQUEST, "kind": "fatal", "status": 400}])


async def _fail(pilot: Any) -> None:
    app: AtomicApp = pilot.app
    await send(pilot, "hello")
    await wait_for(lambda: len(app.engine.messages()) >= 2 and not app.engine.is_streaming, pilot)
    await pilot.pause(0.2)


def test_provider_error(snap_compare: Any) -> None:
    assert snap_compare(_error_app(), terminal_size=(100, 20), run_before=_fail)


def test_provider_error_expanded(snap_compare: Any) -> None:
    assert snap_compare(_error_app(), terminal_size=(100, 26), run_before=_fail, press=["ctrl+o"])


def test_retry_countdown(snap_compare: Any, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 30_000}}))

    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await send(pilot, "hello")
        await wait_for(lambda: app.input_flow.retrying, pilot)
        await pilot.pause(0.2)

    app = make_app(project(), [{"error": OVERLOADED, "kind": "transient", "status": 529}])
    assert snap_compare(app, terminal_size=(100, 20), run_before=run_before)


async def _history(pilot: Any, answers: int) -> None:
    app: AtomicApp = pilot.app
    for i in range(answers):
        await send(pilot, f"question {i}\n{LONG}")
        await wait_for(lambda i=i: app.engine.last_assistant_text() == f"answer {i}", pilot)
        await wait_for(lambda: not app.engine.is_streaming, pilot)


def _compaction_app(planner: dict[str, Any]) -> AtomicApp:
    history = [{"text": f"answer {i}", "usage": {"input": 1200 + 300 * i, "output": 40}} for i in range(3)]
    return make_app(project(), [*history, planner])


def test_compaction_in_progress(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await _history(pilot, 3)
        await send(pilot, "/compact")
        await wait_for(lambda: app.engine.is_compacting, pilot)
        await pilot.pause(0.2)

    app = _compaction_app({"text": "2,", "hang": True})
    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)


def test_compaction_result(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await _history(pilot, 3)
        await send(pilot, "/compact")
        await wait_for(lambda: any(n.text.startswith("✓") for n in app.conversation.query(NoteMessage)), pilot)
        await pilot.pause(0.2)

    app = _compaction_app({"text": "2,20\n"})
    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)
