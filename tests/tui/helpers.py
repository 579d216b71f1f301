"""Building an AtomicApp on the scripted provider, and waiting for the engine in pilot tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.providers.scripted import ScriptedProvider
from atomic.tui.app import AtomicApp
from tests import support


def make_app(cwd: Path, responses: list[dict[str, Any]] | None = None, **options: Any) -> AtomicApp:
    cwd.mkdir(parents=True, exist_ok=True)
    provider = ScriptedProvider(responses or [])
    opts = SessionOptions(cwd=cwd, scripted=provider, **options)
    return AtomicApp(opts, clock=lambda: 0.0, cursor_blink=False)


async def wait_for(predicate: Any, pilot: Any, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


async def type_text(pilot: Any, text: str) -> None:
    pilot.app.editor.insert(text)
    await pilot.pause()


async def submit(pilot: Any, text: str) -> None:
    """Type `text` into the editor and press Enter (without waiting for the reply)."""
    await type_text(pilot, text)
    await pilot.press("enter")


def user_texts(app: AtomicApp) -> list[str]:
    """The text of each user message in the app's session, in order."""
    return support.user_texts(app.engine.messages())


def behind(app: AtomicApp) -> AgentSession:
    """The engine session behind the app's `Engine` contract: for what a test checks or arranges that the
    contract does not show (loaded extension modules, the system prompt, hooks, stored entries)."""
    return app.engine._s
