"""The key and headers of one request: an API key as the registry resolves it, or, for a provider the
person logged in to with a subscription, its token refreshed when due plus the headers that login
requires (Copilot's editor headers, ChatGPT's account id).

A refresh that fails becomes the turn's error: `auth` (no retry) with the words to log in again when
only a new login helps, `transient` (retried) when the token server could not be reached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atomic.core.model_types import Model
from atomic.core.providers.base import ProviderError

if TYPE_CHECKING:
    from atomic.core.models.registry import ModelRegistry


async def request_credentials(
    registry: ModelRegistry, model: Model, messages: list[Any]
) -> tuple[str | None, dict[str, str]]:
    from atomic.core.oauth import LoginError, ReloginNeeded, fresh_credential, oauth_login

    headers = registry.headers_for(model)
    login = oauth_login(model.provider)
    if login is None or not registry.login_in_use(model.provider):
        return registry.api_key_for(model.provider), headers
    try:
        credential = await fresh_credential(registry.auth, model.provider)
    except ReloginNeeded as exc:
        raise ProviderError(str(exc), kind="auth") from None
    except LoginError as exc:
        raise ProviderError(str(exc), kind="transient") from None
    if credential is None:
        return registry.api_key_for(model.provider), headers
    token = credential.get("access")
    # The login's headers under the configured ones: a models.json header still has the last word.
    return (token if isinstance(token, str) else None), {**login.request_headers(credential, messages), **headers}
