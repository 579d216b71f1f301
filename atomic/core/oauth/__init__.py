"""Subscription logins, declared once: provider id -> how to log in, refresh and address requests.

GitHub Copilot (device flow) and ChatGPT for Codex (OAuth with PKCE). There is deliberately no login
for Anthropic's consumer subscriptions: their terms forbid using them from other tools.

The engine calls `fresh_credential` before each request to a logged-in provider: a token that is due
is refreshed under the auth.json lock (in a thread, the lock and the token call are blocking), so
two Atomic processes never spend one refresh token twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atomic.core.oauth.base import LoginCancelled, LoginError, LoginPrompts, ReloginNeeded

if TYPE_CHECKING:
    from atomic.core.auth import AuthStorage


@dataclass(frozen=True)
class OAuthLogin:
    provider: str
    display_name: str
    # What /login and the ACP auth method call it.
    title: str
    login: Callable[[LoginPrompts], Awaitable[dict[str, Any]]]
    refresh: Callable[[dict[str, Any]], dict[str, Any] | None]
    request_headers: Callable[[dict[str, Any], list[Any]], dict[str, str]]


def _copilot() -> OAuthLogin:
    from atomic.core.oauth import github_copilot as m

    return OAuthLogin(m.PROVIDER, m.DISPLAY_NAME, "GitHub Copilot subscription (device login)",
                      m.login, m.refresh, m.request_headers)


def _codex() -> OAuthLogin:
    from atomic.core.oauth import openai_codex as m

    return OAuthLogin(m.PROVIDER, m.DISPLAY_NAME, "ChatGPT Plus/Pro subscription (browser login)",
                      m.login, m.refresh, m.request_headers)


_LOGINS: dict[str, Callable[[], OAuthLogin]] = {"github-copilot": _copilot, "openai-codex": _codex}
LOGIN_PROVIDERS: tuple[str, ...] = tuple(_LOGINS)


def oauth_login(provider: str) -> OAuthLogin | None:
    make = _LOGINS.get(provider)
    return make() if make is not None else None


async def run_login(auth: AuthStorage, provider: str, prompts: LoginPrompts) -> None:
    """Log in and store the tokens. Raises LoginError (LoginCancelled when the person stopped)."""
    login = oauth_login(provider)
    if login is None:
        raise LoginError(f'"{provider}" has no subscription login; store an API key instead.')
    credential = await login.login(prompts)
    await asyncio.to_thread(auth.set_oauth, provider, credential)


async def fresh_credential(auth: AuthStorage, provider: str) -> dict[str, Any] | None:
    """The provider's stored login, refreshed first when it is due; None when there is none.
    Raises ReloginNeeded when only a new login helps, LoginError when the refresh could not run."""
    login = oauth_login(provider)
    current = auth.oauth(provider)
    if login is None or current is None:
        return None
    from atomic.core.oauth.base import needs_refresh

    if not needs_refresh(current):
        return current
    return await asyncio.to_thread(auth.update_oauth, provider, login.refresh)


__all__ = [
    "LOGIN_PROVIDERS",
    "LoginCancelled",
    "LoginError",
    "LoginPrompts",
    "OAuthLogin",
    "ReloginNeeded",
    "fresh_credential",
    "oauth_login",
    "run_login",
]
