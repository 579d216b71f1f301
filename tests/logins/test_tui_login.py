"""/login in the TUI for a subscription: the device code is shown, the login finishes on its own and
selects the provider's model; Esc stops a login and stores nothing."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from atomic.tui.app import AtomicApp
from tests.logins.standins import StandInServer
from tests.logins.test_copilot_login import COPILOT_MODELS
from tests.tui.helpers import wait_for
from tests.tui.test_setup_flows import no_key_app, notes, run_command


async def open_copilot_login(pilot: object, app: AtomicApp) -> None:
    await run_command(pilot, "/login")
    await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
    await pilot.press(*"github-copilot", "enter")  # type: ignore[attr-defined]
    await wait_for(lambda: type(app.screen).__name__ == "SubscriptionLoginScreen", pilot)


async def test_copilot_login_from_the_tui(standin: StandInServer, tmp_path: Path, agent_dir: Path) -> None:
    standin.state.models = COPILOT_MODELS
    standin.state.device_interval = 0.05
    standin.state.device_polls = [{"error": "authorization_pending"}] * 20
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        await open_copilot_login(pilot, app)
        await wait_for(lambda: "ABCD-1234" in str(app.screen.query_one("#login-code", Static).render()), pilot)
        assert "https://github.com/login/device" in str(app.screen.query_one("#login-lines", Static).render())
        await wait_for(lambda: type(app.screen).__name__ != "SubscriptionLoginScreen", pilot, timeout=20)
        await pilot.pause()
        assert app.engine.models.model is not None and app.engine.models.model.provider == "github-copilot"
        assert app.engine.models.model.id == "claude-sonnet-4.5"
        assert any("Logged in to github-copilot" in str(n.render()) for n in notes(app))
    assert json.loads((agent_dir / "auth.json").read_text())["github-copilot"]["type"] == "oauth"


async def test_escape_stops_the_login(standin: StandInServer, tmp_path: Path, agent_dir: Path) -> None:
    standin.state.device_interval = 0.05
    standin.state.device_polls = [{"error": "authorization_pending"}] * 10_000
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        await open_copilot_login(pilot, app)
        await wait_for(lambda: len(standin.state.requests_to("/login/oauth/access_token")) >= 2, pilot)
        await pilot.press("escape")
        await wait_for(lambda: type(app.screen).__name__ != "SubscriptionLoginScreen", pilot)
        polls = len(standin.state.requests_to("/login/oauth/access_token"))
        await pilot.pause(0.3)
        assert len(standin.state.requests_to("/login/oauth/access_token")) <= polls + 1
        assert app.engine.models.model is None
    assert not (agent_dir / "auth.json").exists()


async def test_chatgpt_login_from_the_tui_by_pasting_the_address(
    standin: StandInServer, tmp_path: Path, agent_dir: Path, callback_port: int
) -> None:
    import re

    from textual.widgets import Input

    from tests.logins.test_codex_login import authorize

    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        await run_command(pilot, "/login")
        await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
        await pilot.press(*"openai-codex", "enter")
        await wait_for(lambda: type(app.screen).__name__ == "SubscriptionLoginScreen", pilot)
        screen = app.screen
        await wait_for(lambda: screen.query_one("#login-paste", Input).display, pilot)
        text = str(screen.query_one("#login-lines", Static).render())
        url = re.search(r"http://127\.0\.0\.1:\d+/oauth/authorize\?\S+", text)
        assert url is not None, text
        screen.query_one("#login-paste", Input).value = authorize(url.group(0))
        await pilot.press("enter")
        await wait_for(lambda: type(app.screen).__name__ != "SubscriptionLoginScreen", pilot, timeout=20)
        await pilot.pause()
        assert app.engine.models.model is not None and app.engine.models.model.provider == "openai-codex"
        # /logout lists the login and removes it.
        await run_command(pilot, "/logout")
        await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
        await pilot.press(*"openai-codex", "enter")
        await wait_for(lambda: type(app.screen).__name__ != "LoginScreen", pilot)
        await pilot.pause()
        assert any("its login is removed" in str(n.render()) for n in notes(app))
    assert "openai-codex" not in json.loads((agent_dir / "auth.json").read_text())
