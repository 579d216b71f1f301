"""ChatGPT for Codex: OAuth with PKCE against a local stand-in of OpenAI's auth server, through the local
callback or by pasting the address, and the refresh of a stored login."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from atomic.core.auth import AuthStorage
from atomic.core.oauth import LoginCancelled, LoginError, ReloginNeeded, run_login
from atomic.core.oauth.openai_codex import parse_pasted, pkce_pair, refresh
from tests.logins.conftest import ScriptedPrompts
from tests.logins.standins import ACCOUNT_ID, StandInServer


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def authorize(url: str) -> str:
    """What the browser does: open the authorize page, log in, and get sent on; returns that address."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(url)
    except urllib.error.HTTPError as redirect:
        assert redirect.code == 302, redirect.read()
        return str(redirect.headers["Location"])
    raise AssertionError("the authorize page did not redirect")


def browser(url: str) -> None:
    """A browser on this machine: follows the redirect to the local callback in the background."""
    def run() -> None:
        location = authorize(url).replace("localhost", "127.0.0.1")
        with urllib.request.urlopen(location) as answer:
            assert b"Logged in" in answer.read()

    threading.Thread(target=run, daemon=True).start()


def test_pkce_pair_is_rfc7636_s256() -> None:
    import base64
    import hashlib

    verifier, challenge = pkce_pair()
    assert 43 <= len(verifier) <= 128 and "=" not in verifier
    assert challenge == base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    assert pkce_pair()[0] != verifier


def test_pasted_forms() -> None:
    assert parse_pasted("http://localhost:1455/auth/callback?code=abc&state=s1") == ("abc", "s1")
    assert parse_pasted("code=abc&state=s1") == ("abc", "s1")
    assert parse_pasted("abc#s1") == ("abc", "s1")
    assert parse_pasted("  abc  ") == ("abc", None)
    assert parse_pasted("") == (None, None)


async def test_browser_login_through_the_local_callback(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    prompts = ScriptedPrompts(on_url=browser)
    await run_login(AuthStorage(agent_dir), "openai-codex", prompts)
    url = next(u for _, u, _ in prompts.shown if u)
    query = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    assert query["redirect_uri"] == f"http://localhost:{callback_port}/auth/callback"
    assert query["code_challenge_method"] == "S256" and query["scope"] == "openid profile email offline_access"
    # The stand-in compared the verifier sent with the token request to the challenge in the address.
    assert standin.state.pkce_checked == [True]
    stored = json.loads((agent_dir / "auth.json").read_text())["openai-codex"]
    assert stored["type"] == "oauth" and stored["accountId"] == ACCOUNT_ID
    assert stored["refresh"] == "rt-standin-1"
    assert abs(stored["expires"] - (time.time() + 864000) * 1000) < 5000


async def test_paste_the_address_when_the_port_is_taken(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", callback_port))
        busy.listen()
        prompts = ScriptedPrompts()

        def remote_browser(url: str) -> None:
            # The browser is elsewhere: the person copies the address it ended on, first an old one.
            location = authorize(url)
            stale = location.replace("state=", "state=old")
            prompts.answers[:] = [stale, location]

        prompts.on_url = remote_browser
        await run_login(AuthStorage(agent_dir), "openai-codex", prompts)
    assert "busy" in prompts.shown[0][0]
    assert prompts.asked == 2 and any("another login attempt" in text for text, _, _ in prompts.shown)
    assert standin.state.pkce_checked == [True]
    assert json.loads((agent_dir / "auth.json").read_text())["openai-codex"]["accountId"] == ACCOUNT_ID


async def test_a_wrong_verifier_is_refused_by_the_server(
    standin: StandInServer, agent_dir: Path, callback_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atomic.core.oauth import openai_codex

    real = openai_codex.pkce_pair
    monkeypatch.setattr(openai_codex, "pkce_pair", lambda: ("x" * 43, real()[1]))
    with pytest.raises(LoginError, match="PKCE verification failed"):
        await run_login(AuthStorage(agent_dir), "openai-codex", ScriptedPrompts(on_url=browser))
    assert standin.state.pkce_checked == [False]
    assert not (agent_dir / "auth.json").exists()


async def test_giving_up_at_the_prompt_stores_nothing(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    with pytest.raises(LoginCancelled):
        await run_login(AuthStorage(agent_dir), "openai-codex", ScriptedPrompts())
    assert not (agent_dir / "auth.json").exists()
    # The callback server is gone with the login.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", callback_port))


async def test_cancelling_the_login_closes_the_callback(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    prompts = ScriptedPrompts(on_url=lambda url: None)
    task = asyncio.create_task(run_login(AuthStorage(agent_dir), "openai-codex", prompts))
    while not prompts.shown:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", callback_port))


def test_refresh_uses_the_refresh_grant(standin: StandInServer) -> None:
    standin.state.refresh_tokens.add("rt-old")
    fresh = refresh({"access": "a", "refresh": "rt-old", "expires": 0, "accountId": "x"})
    assert fresh is not None and fresh["refresh"] == "rt-standin-1" and fresh["accountId"] == ACCOUNT_ID
    [call] = standin.state.requests_to("/oauth/token")
    assert call.body == {"grant_type": "refresh_token", "refresh_token": "rt-old",
                         "client_id": "app_EMoamEEZ73f0CkXaXp7hrann"}
    # A login that is not due is left alone.
    assert refresh({"access": "a", "refresh": "rt", "expires": int(time.time() * 1000) + 3_600_000}) is None


def test_a_refused_refresh_asks_for_a_new_login(standin: StandInServer) -> None:
    with pytest.raises(ReloginNeeded, match="atomic --login openai-codex"):
        refresh({"access": "a", "refresh": "rt-unknown", "expires": 0})


async def test_a_callback_with_another_state_cannot_slip_in_a_code(
    standin: StandInServer, agent_dir: Path, callback_port: int
) -> None:
    """A page the attacker controls can make the browser call the callback; without the login's state
    its code is refused and the real login still completes."""
    def attacker_then_browser(url: str) -> None:
        def run() -> None:
            forged = f"http://127.0.0.1:{callback_port}/auth/callback?code=attacker-code&state=guess"
            try:
                urllib.request.urlopen(forged)
            except urllib.error.HTTPError as refused:
                assert refused.code == 400
            browser(url)

        threading.Thread(target=run, daemon=True).start()

    await run_login(AuthStorage(agent_dir), "openai-codex", ScriptedPrompts(on_url=attacker_then_browser))
    codes = [s.body.get("code") for s in standin.state.requests_to("/oauth/token")]
    assert "attacker-code" not in codes and standin.state.pkce_checked == [True]


async def test_two_processes_refreshing_at_once_spend_the_refresh_token_once(
    standin: StandInServer, agent_dir: Path
) -> None:
    from atomic.core.oauth import fresh_credential

    standin.state.refresh_tokens.add("rt-once")
    AuthStorage(agent_dir).set_oauth("openai-codex", {"access": "a", "refresh": "rt-once", "expires": 0,
                                                      "accountId": ACCOUNT_ID})
    first, second = await asyncio.gather(
        fresh_credential(AuthStorage(agent_dir), "openai-codex"),
        fresh_credential(AuthStorage(agent_dir), "openai-codex"),
    )
    assert first is not None and second is not None and first["access"] == second["access"]
    assert len(standin.state.requests_to("/oauth/token")) == 1


def test_there_is_no_login_for_anthropic_subscriptions() -> None:
    from atomic.core.oauth import LOGIN_PROVIDERS, oauth_login

    assert LOGIN_PROVIDERS == ("github-copilot", "openai-codex")
    assert oauth_login("anthropic") is None
