"""A tiny host app for the screen tests: opens a real engine session, then pushes one screen over it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

from atomic.core.contract import Engine, open_engine
from atomic.core.engine.options import SessionOptions
from atomic.core.providers.scripted import ScriptedProvider

LOCAL_MODELS = {
    "providers": {
        "localai": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "dummy-key",
            "models": [
                {"id": "alpha-coder", "name": "Alpha Coder", "contextWindow": 32768, "maxTokens": 4096},
                {
                    "id": "beta-thinker",
                    "name": "Beta Thinker",
                    "reasoning": True,
                    "input": ["text", "image"],
                    "contextWindow": 200000,
                },
                {"id": "gamma-mini", "name": "Gamma Mini", "contextWindow": 8192},
            ],
        }
    }
}


def agent_dir() -> Path:
    return Path(os.environ["ATOMIC_CODING_AGENT_DIR"])


def write_local_models() -> None:
    (agent_dir() / "models.json").write_text(json.dumps(LOCAL_MODELS), encoding="utf-8")


def read_settings() -> dict[str, Any]:
    return json.loads((agent_dir() / "settings.json").read_text(encoding="utf-8"))


class HostApp(App[None]):
    """Creates the session on mount (inside the app's loop), runs `prepare`, then pushes the screen."""

    def __init__(
        self,
        cwd: Path,
        make_screen: Callable[[Engine], Screen[Any]],
        *,
        script: list[dict[str, Any]] | None = None,
        prepare: Callable[[Engine], Any] | None = None,
    ) -> None:
        super().__init__()
        self.cwd = cwd
        self.make_screen = make_screen
        self.script = script or []
        self.prepare = prepare
        self.engine: Engine | None = None
        self.results: list[object] = []  # what each screen dismissed with

    def compose(self) -> ComposeResult:
        yield Static("host")

    async def on_mount(self) -> None:
        self.theme = "textual-dark"
        self.engine = await open_engine(SessionOptions(cwd=self.cwd, scripted=ScriptedProvider(self.script)))
        if self.prepare is not None:
            result = self.prepare(self.engine)
            if hasattr(result, "__await__"):
                await result
        self.push_screen(self.make_screen(self.engine), callback=self.results.append)


async def wait_for_modal(pilot: Pilot[Any]) -> ModalScreen[Any]:
    """Pause until the host has pushed its screen; blink off so screenshots are stable."""
    for _ in range(200):
        if isinstance(pilot.app.screen, ModalScreen):
            break
        await pilot.pause(0.01)
    screen = pilot.app.screen
    assert isinstance(screen, ModalScreen)
    for widget in screen.query(Input):
        widget.cursor_blink = False
    await pilot.pause()
    return screen
