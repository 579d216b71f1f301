"""Snapshot of a large paste kept collapsed in the transcript, as it was in the editor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual import events

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, type_text, wait_for


def project() -> Path:
    root = Path(os.environ["HOME"]) / "project"
    root.mkdir(parents=True, exist_ok=True)
    return root


async def send_with_paste(pilot: Any) -> None:
    app: AtomicApp = pilot.app
    await type_text(pilot, "why does this fail? ")
    app.post_message(events.Paste("\n".join(f"Traceback line {i}" for i in range(2000))))
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(lambda: not app.engine.is_streaming and app.engine.last_assistant_text() == "Looking.", pilot)
    await type_text(pilot, "and this: ")
    app.post_message(events.Paste("\n".join(f"more {i}" for i in range(40))))
    await pilot.pause(0.2)


def test_collapsed_paste_in_the_transcript_and_the_editor(snap_compare: Any) -> None:
    app = make_app(project(), [{"text": "Looking."}])
    assert snap_compare(app, terminal_size=(90, 16), run_before=send_with_paste)


async def drop_an_image(pilot: Any) -> None:
    app: AtomicApp = pilot.app
    shot = Path(os.environ["HOME"]) / "project" / "screen shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n")
    await type_text(pilot, "what is wrong here? ")
    app.post_message(events.Paste(f"'{shot}'"))
    await pilot.pause(0.2)


def test_image_chip_in_the_editor(snap_compare: Any) -> None:
    app = make_app(project(), [])
    assert snap_compare(app, terminal_size=(90, 10), run_before=drop_an_image)
