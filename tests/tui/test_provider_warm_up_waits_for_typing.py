"""The TUI loads the provider's HTTP stack when the user starts typing, not at start: an app that is
opened and left idle never pays for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.contract.models_view import ModelsView
from tests.tui.helpers import make_app, wait_for


@pytest.fixture
def warm_ups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr(ModelsView, "warm_up_provider", lambda self: calls.append(1))
    return calls


async def test_an_idle_app_never_warms_the_provider_up(tmp_path: Path, warm_ups: list[int]) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await pilot.pause(0.3)
        assert warm_ups == []


async def test_the_first_key_warms_it_up_once(tmp_path: Path, warm_ups: list[int]) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await pilot.press("h", "e", "l", "l", "o")
        await pilot.pause()
        assert warm_ups == [1]
        assert app.editor.text == "hello"
