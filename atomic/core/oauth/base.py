"""What every subscription login shares: the prompts a frontend answers, the errors, the endpoints
that tests may point elsewhere, and a small form-POST helper.

A login never prints: it talks to the person through a `LoginPrompts` the frontend gives it (the
TUI's login screen, the terminal for `atomic --login`), and returns the credential to store. The
tokens go only to auth.json; no message, log line or error text carries one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any, Protocol

# Each real endpoint a login talks to can be replaced by an environment variable, for the tests'
# local stand-in servers only (docs/models.md marks them so). Nothing else changes these URLs.
TEST_URL_VARIABLES = {
    "github": ("ATOMIC_TEST_GITHUB_URL", "https://github.com"),
    "github-api": ("ATOMIC_TEST_GITHUB_API_URL", "https://api.github.com"),
    "openai-auth": ("ATOMIC_TEST_OPENAI_AUTH_URL", "https://auth.openai.com"),
}
TEST_CALLBACK_PORT_VARIABLE = "ATOMIC_TEST_CODEX_CALLBACK_PORT"
HTTP_TIMEOUT_S = 30.0
# A token this close to its expiry is refreshed before a request rather than after a 401.
REFRESH_MARGIN_MS = 60_000


def endpoint_base(name: str) -> str:
    variable, default = TEST_URL_VARIABLES[name]
    return (os.environ.get(variable) or default).rstrip("/")


def now_ms() -> int:
    return int(time.time() * 1000)


def needs_refresh(credential: Mapping[str, Any]) -> bool:
    expires = credential.get("expires")
    return not isinstance(expires, int | float) or expires - REFRESH_MARGIN_MS <= now_ms()


class LoginError(Exception):
    """A login or refresh that did not work; the message is for the person and names no token."""


class LoginCancelled(LoginError):
    """The person stopped the login (or refused it on the provider's page)."""


class ReloginNeeded(LoginError):
    """The stored login can no longer be refreshed: only a new login helps."""


class LoginPrompts(Protocol):
    """How a login talks to the person. `show` may be called several times (a code, then progress)."""

    def show(self, text: str, *, url: str | None = None, code: str | None = None) -> None: ...

    async def ask(self, question: str) -> str:
        """A line the person types or pastes; raises LoginCancelled when they give up."""
        ...


def relogin_message(provider: str, display_name: str, reason: str) -> str:
    return (
        f"Your {display_name} login can no longer be used ({reason}). Log in again: /login in Atomic, "
        f"or `atomic --login {provider}`."
    )


def response_json(response: Any) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def error_words(data: Mapping[str, Any], status: int) -> str:
    """The server's own words for a failed token call (never the request, which holds secrets)."""
    for key in ("error_description", "message"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{status} {value}"
    error = data.get("error")
    if isinstance(error, str) and error:
        return f"{status} {error}"
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return f"{status} {error['message']}"
    return f"HTTP {status}"
