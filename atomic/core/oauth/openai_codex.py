"""ChatGPT (Plus, Pro, Team) for the Codex models: OAuth 2.0 authorization code with PKCE.

1. A PKCE verifier (43 random URL-safe characters) and its S256 challenge; a random `state`.
2. The person opens `auth.openai.com/oauth/authorize?...` in a browser. OpenAI sends the browser back
   to `http://localhost:1455/auth/callback?code=...&state=...`, which a one-shot server on
   127.0.0.1:1455 answers. Over SSH (no browser on this machine, or the port is taken) the person
   pastes the address the browser ended on instead: whichever comes first wins.
3. `POST auth.openai.com/oauth/token` (authorization_code + the verifier) gives the access token, a
   refresh token and `expires_in`; the ChatGPT account id is read from the access token's claims
   and sent with every request as `chatgpt-account-id`.
4. Refresh: `grant_type=refresh_token` under the auth.json lock; a refused refresh token means a new
   login (the message says how).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from atomic.core.oauth.base import (
    HTTP_TIMEOUT_S,
    TEST_CALLBACK_PORT_VARIABLE,
    LoginCancelled,
    LoginError,
    LoginPrompts,
    ReloginNeeded,
    endpoint_base,
    error_words,
    needs_refresh,
    now_ms,
    relogin_message,
    response_json,
)

PROVIDER = "openai-codex"
DISPLAY_NAME = "ChatGPT"
# The OAuth client of OpenAI's Codex CLI, the one the ChatGPT Codex endpoint accepts.
CLIENT_ID = "app_EMoamEEZ73f0CkXaXp7hrann"
SCOPE = "openid profile email offline_access"
CALLBACK_PORT = 1455
CALLBACK_PATH = "/auth/callback"
ACCOUNT_CLAIM = "https://api.openai.com/auth"
_PAGE = (
    "<!doctype html><meta charset=utf-8><title>Atomic</title>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{}</h2><p>{}</p></body>"
)


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge) as RFC 7636 defines them."""
    verifier = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def callback_port() -> int:
    value = os.environ.get(TEST_CALLBACK_PORT_VARIABLE, "")
    return int(value) if value.isdigit() else CALLBACK_PORT


def redirect_uri(port: int) -> str:
    return f"http://localhost:{port}{CALLBACK_PATH}"


def authorize_url(challenge: str, state: str, port: int) -> str:
    query = {
        "response_type": "code",
        "client_id": CLIENT_ID,
        "redirect_uri": redirect_uri(port),
        "scope": SCOPE,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": state,
        "id_token_add_organizations": "true",
        "codex_cli_simplified_flow": "true",
        "originator": "atomic",
    }
    return f"{endpoint_base('openai-auth')}/oauth/authorize?{urlencode(query)}"


def parse_pasted(text: str) -> tuple[str | None, str | None]:
    """(code, state) from what the person pasted: the whole address, its query, `code#state`, or the code."""
    value = text.strip()
    if not value:
        return None, None
    if "://" in value or value.startswith("?") or "code=" in value:
        query = parse_qs(urlparse(value).query if "://" in value else value.lstrip("?"))
        codes, states = query.get("code") or [], query.get("state") or []
        return (codes[0] if codes else None), (states[0] if states else None)
    if "#" in value:
        code, _, state = value.partition("#")
        return code or None, state or None
    return value, None


class _Callback:
    """The one-shot local server OpenAI redirects the browser to."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.result: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.server: asyncio.Server | None = None

    async def start(self, port: int) -> bool:
        try:
            self.server = await asyncio.start_server(self._serve, "127.0.0.1", port)
        except OSError:
            return False
        return True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)) not in (b"\r\n", b"\n", b""):
                pass
            parts = line.split(" ")
            target = urlparse(parts[1]) if len(parts) > 1 else urlparse("/")
            status, title, text = self._answer(target.path, parse_qs(target.query))
            body = _PAGE.format(title, text).encode()
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body
            )
            await writer.drain()
        except (TimeoutError, OSError, UnicodeError):
            pass
        finally:
            writer.close()

    def _answer(self, path: str, query: dict[str, list[str]]) -> tuple[str, str, str]:
        if path != CALLBACK_PATH:
            return "404 Not Found", "Not found", ""
        if (query.get("state") or [""])[0] != self.state:
            return "400 Bad Request", "This login link is not the current one", "Start the login again in Atomic."
        if query.get("error"):
            if not self.result.done():
                self.result.set_exception(LoginCancelled(f"OpenAI ended the login: {query['error'][0]}"))
            return "200 OK", "Login cancelled", "You can close this tab."
        code = (query.get("code") or [""])[0]
        if not code:
            return "400 Bad Request", "No authorization code", "Start the login again in Atomic."
        if not self.result.done():
            self.result.set_result(code)
        return "200 OK", "Logged in to ChatGPT", "You can close this tab and go back to Atomic."

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()


async def login(prompts: LoginPrompts) -> dict[str, Any]:
    verifier, challenge = pkce_pair()
    state = secrets.token_hex(16)
    port = callback_port()
    callback = _Callback(state)
    listening = await callback.start(port)
    url = authorize_url(challenge, state, port)
    note = (
        "Open this address in a browser and log in to ChatGPT. If the browser is on another machine, "
        "paste here the address it ends on (it starts with http://localhost)."
    )
    if not listening:
        note = f"Port {port} is busy, so paste the address the browser ends on after the login."
    prompts.show(note, url=url)
    try:
        code = await _first_code(prompts, callback, state, listening)
    finally:
        await callback.close()
    prompts.show("Got the code; fetching your ChatGPT tokens…")
    return await _exchange(code, verifier, port)


async def _first_code(prompts: LoginPrompts, callback: _Callback, state: str, listening: bool) -> str:
    async def pasted() -> str:
        while True:
            code, pasted_state = parse_pasted(await prompts.ask("Paste the address (or the code):"))
            if pasted_state is not None and pasted_state != state:
                prompts.show("That address belongs to another login attempt; paste the newest one.")
                continue
            if code:
                return code
            prompts.show("No code in what was pasted; paste the whole address.")

    waiters: list[asyncio.Future[str]] = [asyncio.ensure_future(pasted())]
    if listening:
        waiters.append(callback.result)
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            if not waiter.done():
                waiter.cancel()
    return next(iter(done)).result()


def account_id(access_token: str) -> str | None:
    """The ChatGPT account id from the access token's claims (a JWT; its signature is the server's
    business, the claim only addresses the request)."""
    parts = access_token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except ValueError:
        return None
    claim = payload.get(ACCOUNT_CLAIM) if isinstance(payload, dict) else None
    value = claim.get("chatgpt_account_id") if isinstance(claim, dict) else None
    return value if isinstance(value, str) and value else None


def _credential(data: dict[str, Any]) -> dict[str, Any]:
    access, refresh_token = data.get("access_token"), data.get("refresh_token")
    if not isinstance(access, str) or not isinstance(refresh_token, str):
        raise LoginError("OpenAI's token answer had no access or refresh token.")
    expires_in = data.get("expires_in")
    credential: dict[str, Any] = {
        "access": access,
        "refresh": refresh_token,
        "expires": now_ms() + int(expires_in if isinstance(expires_in, int | float) else 3600) * 1000,
    }
    account = account_id(access)
    if account is None:
        raise LoginError("OpenAI's access token names no ChatGPT account; is this a ChatGPT login?")
    credential["accountId"] = account
    return credential


async def _exchange(code: str, verifier: str, port: int) -> dict[str, Any]:
    import httpx2

    form = {
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri(port),
    }
    async with httpx2.AsyncClient(timeout=HTTP_TIMEOUT_S) as client:
        answer = await client.post(f"{endpoint_base('openai-auth')}/oauth/token", data=form)
    data = response_json(answer)
    if answer.status_code != 200:
        raise LoginError(f"OpenAI did not accept the login code: {error_words(data, answer.status_code)}")
    return _credential(data)


def refresh(current: dict[str, Any]) -> dict[str, Any] | None:
    """New tokens for the stored refresh token (blocking; runs under the auth.json lock in a thread)."""
    import httpx2

    if not needs_refresh(current):
        return None
    form = {"grant_type": "refresh_token", "refresh_token": str(current.get("refresh") or ""), "client_id": CLIENT_ID}
    try:
        with httpx2.Client(timeout=HTTP_TIMEOUT_S) as client:
            answer = client.post(f"{endpoint_base('openai-auth')}/oauth/token", data=form)
    except httpx2.HTTPError as exc:
        raise LoginError(f"Could not reach OpenAI to renew the ChatGPT login: {type(exc).__name__}") from None
    data = response_json(answer)
    if answer.status_code in (400, 401, 403):
        raise ReloginNeeded(relogin_message(PROVIDER, DISPLAY_NAME, f"OpenAI refused the refresh: "
                                            f"{error_words(data, answer.status_code)}"))
    if answer.status_code != 200:
        raise LoginError(f"OpenAI did not renew the ChatGPT login: {error_words(data, answer.status_code)}")
    return {**current, **_credential(data)}


def request_headers(credential: dict[str, Any], _messages: list[Any]) -> dict[str, str]:
    headers = {"Authorization": f"Bearer {credential.get('access', '')}"}
    if isinstance(credential.get("accountId"), str):
        headers["chatgpt-account-id"] = credential["accountId"]
    return headers
