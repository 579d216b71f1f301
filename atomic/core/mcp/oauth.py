"""OAuth for remote MCP servers, through the `mcp` SDK's client auth (`OAuthClientProvider`).

The SDK does the protocol: discovery (protected resource and authorization server metadata),
dynamic client registration, PKCE, the token request, and refreshing an expired access token
with its refresh token. Atomic adds where the tokens live and how the user logs in:

- tokens and the registered client are kept in `<agent dir>/mcp-oauth.json` (0600, written
  whole then renamed, like auth.json), one entry per server URL; they are never logged;
- a server that wants a login while it starts in the background does not open anything: its
  status becomes `needs login`. `atomic mcp login <server>` (or `/mcp` → `l` in the TUI) runs the
  flow: the authorization URL is shown (and opened in a browser where there is one), a local
  callback on 127.0.0.1 receives the code, and pasting the URL the browser ended on works too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from atomic.core.atomic_io import file_lock, write_atomic

TOKEN_FILE = "mcp-oauth.json"
_FILE_MODE = 0o600
CALLBACK_PATH = "/callback"
LOGIN_TIMEOUT_S = 300.0


class LoginNeeded(Exception):
    """The server wants the user to log in, and this start may not ask."""


class TokenFile:
    """The SDK's `TokenStorage` for one server, in the agent dir's token file."""

    def __init__(self, path: Path, server_url: str, sdk: Any) -> None:
        self.path = path
        self.key = server_url
        self._sdk = sdk

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _entry(self) -> dict[str, Any]:
        entry = self._read().get(self.key)
        return entry if isinstance(entry, dict) else {}

    def _update(self, field: str, value: dict[str, Any] | None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(self.path):
            data = self._read()
            found = data.get(self.key)
            entry: dict[str, Any] = found if isinstance(found, dict) else {}
            if value is None:
                entry.pop(field, None)
            else:
                entry[field] = value
            data[self.key] = entry
            write_atomic(self.path, json.dumps(data, indent=2), mode=_FILE_MODE)
        with contextlib.suppress(OSError):
            os.chmod(self.path, _FILE_MODE)

    def has_tokens(self) -> bool:
        return "tokens" in self._entry()

    async def get_tokens(self) -> Any:
        raw = self._entry().get("tokens")
        return self._sdk.shared.auth.OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    async def set_tokens(self, tokens: Any) -> None:
        self._update("tokens", tokens.model_dump(mode="json", exclude_none=True))
        # `expires_in` is relative: keep when it runs out, so a later start refreshes in time.
        lifetime = tokens.expires_in
        self._update("expiresAt", {"at": time.time() + lifetime} if isinstance(lifetime, int | float) else None)

    def expires_at(self) -> float | None:
        raw = self._entry().get("expiresAt")
        at = raw.get("at") if isinstance(raw, dict) else None
        return float(at) if isinstance(at, int | float) else None

    async def get_client_info(self) -> Any:
        raw = self._entry().get("client")
        return self._sdk.shared.auth.OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    async def set_client_info(self, client_info: Any) -> None:
        self._update("client", client_info.model_dump(mode="json", exclude_none=True))

    def forget(self) -> None:
        """Drop the server's tokens and registration: a login starts over (its callback port is new)."""
        self._update("tokens", None)
        self._update("client", None)


class CallbackServer:
    """The local redirect target: `http://127.0.0.1:<port>/callback?code=...&state=...`."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self.result: asyncio.Future[tuple[str, str | None]] | None = None
        self.port = 0

    async def start(self) -> str:
        self.result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            target = request_line.split(" ")[1] if request_line.count(" ") >= 2 else ""
            parsed = parse_redirect(f"http://127.0.0.1{target}")
            body = "Logged in: you can close this tab." if parsed else "No authorization code in this request."
            writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
                         f"Connection: close\r\n\r\n{body}".encode())
            await writer.drain()
            if parsed and self.result is not None and not self.result.done():
                self.result.set_result(parsed)
        except (OSError, TimeoutError, IndexError, UnicodeError):
            pass
        finally:
            writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()


def parse_redirect(url: str) -> tuple[str, str | None] | None:
    """(code, state) from the URL the authorization server redirected to."""
    query = parse_qs(urlparse(url.strip()).query)
    code = query.get("code", [None])[0]
    return (code, query.get("state", [None])[0]) if code else None


ShowUrl = Callable[[str], None]
PasteUrl = Callable[[], Awaitable[str | None]]


class LoginFlow:
    """One interactive login: shows the URL, then waits for the callback or a pasted URL."""

    def __init__(self, show: ShowUrl, paste: PasteUrl | None = None, timeout_s: float = LOGIN_TIMEOUT_S) -> None:
        self.show = show
        self.paste = paste
        self.timeout_s = timeout_s
        self.callback = CallbackServer()
        self.redirect_uri = ""

    async def open(self) -> str:
        self.redirect_uri = await self.callback.start()
        return self.redirect_uri

    async def redirect(self, url: str) -> None:
        self.show(url)

    async def wait_code(self, sdk: Any) -> Any:
        assert self.callback.result is not None
        waiters: list[asyncio.Future[Any]] = [self.callback.result]
        if self.paste is not None:
            waiters.append(asyncio.ensure_future(self._pasted()))
        try:
            done, _ = await asyncio.wait(waiters, timeout=self.timeout_s, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters[1:]:
                waiter.cancel()
        if not done:
            raise TimeoutError("no authorization arrived")
        code, state = next(iter(done)).result()
        return sdk.shared.auth.AuthorizationCodeResult(code=code, state=state)

    async def _pasted(self) -> tuple[str, str | None]:
        assert self.paste is not None
        while True:
            line = await self.paste()
            if line is None:
                await asyncio.Event().wait()  # no more input: only the callback can answer
            parsed = parse_redirect(line or "")
            if parsed:
                return parsed

    async def close(self) -> None:
        await self.callback.close()


def oauth_provider(sdk: Any, url: str, store: TokenFile, flow: LoginFlow | None, on_login_needed: Callable[[], None],
                   redirect_uri: str) -> Any:
    """The SDK's httpx auth for one server: interactive when `flow` is given, else it only reports."""
    auth = sdk.client.auth

    async def redirect(authorization_url: str) -> None:
        if flow is None:
            on_login_needed()
            raise LoginNeeded()
        await flow.redirect(authorization_url)

    async def callback() -> Any:
        if flow is None:
            raise LoginNeeded()
        return await flow.wait_code(sdk)

    metadata = sdk.shared.auth.OAuthClientMetadata(
        client_name="Atomic", redirect_uris=[redirect_uri],
        grant_types=["authorization_code", "refresh_token"], response_types=["code"],
        token_endpoint_auth_method="none",
    )
    base: Any = auth.OAuthClientProvider

    class Provider(base):  # type: ignore[misc,valid-type]
        async def _initialize(self) -> None:
            # The SDK forgets when stored tokens expire (it keeps only `expires_in`): without this a
            # restarted Atomic would send an expired token and ask for a login instead of refreshing.
            await super()._initialize()
            self.context.token_expiry_time = store.expires_at()

    return Provider(server_url=url, client_metadata=metadata, storage=store,
                    redirect_handler=redirect, callback_handler=callback)
