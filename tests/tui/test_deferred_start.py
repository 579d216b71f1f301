"""Deferred start: the chrome paints first and the editor takes keys before the engine has loaded."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.options import SessionOptions
from atomic.core.providers.scripted import ScriptedProvider
from atomic.tui.app import AtomicApp
from tests.tui.helpers import wait_for


async def test_deferred_start_paints_chrome_first_then_loads_the_engine(tmp_path: Path) -> None:
    options = SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]))
    app = AtomicApp(options, clock=lambda: 0.0, cursor_blink=False, defer_session_start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        # The editor takes keys before the engine exists, and the text is kept.
        await pilot.press("h", "i")
        await wait_for(lambda: app.session_ready, pilot)
        assert app.engine is not None
        assert app.editor.text == "hi"
        await pilot.press("enter")
        await wait_for(lambda: app.engine.last_assistant_text() == "You said: hi", pilot)

