"""The subscription logins a frontend offers (TUI /login, ACP `authMethods`), readable before an
engine is open."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SubscriptionLogin:
    provider: str
    display_name: str
    title: str


def subscription_logins() -> list[SubscriptionLogin]:
    from atomic.core.oauth import LOGIN_PROVIDERS, oauth_login

    logins = []
    for provider in LOGIN_PROVIDERS:
        login = oauth_login(provider)
        if login is not None:
            logins.append(SubscriptionLogin(login.provider, login.display_name, login.title))
    return logins
