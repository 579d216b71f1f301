"""GitHub Copilot: the GitHub device flow, the Copilot token exchange and refresh, the models list and
the headers Copilot requires.

1. `POST github.com/login/device/code` gives a user code and a URL; the person enters the code there
   while Atomic polls `POST github.com/login/oauth/access_token` (`authorization_pending`,
   `slow_down`, `expired_token`, `access_denied`).
2. The GitHub token (stored as `refresh`) is exchanged at `GET api.github.com/copilot_internal/v2/token`
   for a Copilot token (stored as `access`) that lives about half an hour; `expires` is its
   `expires_at` less five minutes, so a request never goes out with a token about to lapse. The
   exchange is repeated whenever the token is due (`refresh`); a 401/403 there means the GitHub
   token was revoked and only a new login helps.
3. The token answer names the API host (`endpoints.api`); `GET <api>/models` lists what the
   subscription offers, and each model is spoken to over the wire its `supported_endpoints` name:
   `/v1/messages` (Claude) over anthropic-messages, `/responses` over openai-responses, the rest
   over openai-completions.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from atomic.core.oauth.base import (
    HTTP_TIMEOUT_S,
    LoginCancelled,
    LoginError,
    LoginPrompts,
    ReloginNeeded,
    endpoint_base,
    error_words,
    now_ms,
    relogin_message,
    response_json,
)

PROVIDER = "github-copilot"
DISPLAY_NAME = "GitHub Copilot"
# The OAuth app of GitHub's Copilot editor extensions; Copilot tokens are only issued to it.
CLIENT_ID = "Iv1.b507a08c87ecfe98"
DEFAULT_API_BASE = "https://api.individual.githubcopilot.com"
# Copilot answers only clients that say which editor integration they are.
EDITOR_HEADERS = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
_EXPIRY_MARGIN_MS = 5 * 60 * 1000
_DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"



def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}

def _client() -> Any:
    import httpx2

    return httpx2.AsyncClient(timeout=HTTP_TIMEOUT_S)


async def login(prompts: LoginPrompts) -> dict[str, Any]:
    """The device flow, then the first Copilot token and the models list: the credential to store."""
    async with _client() as client:
        github_token = await _device_flow(client, prompts)
        prompts.show("GitHub accepted the code; fetching your Copilot token…")
        credential = _credential(github_token, await _exchange(client, github_token))
        credential["models"] = await _models(client, credential)
    return credential


async def _device_flow(client: Any, prompts: LoginPrompts) -> str:
    base = endpoint_base("github")
    answer = await client.post(
        f"{base}/login/device/code",
        data={"client_id": CLIENT_ID, "scope": "read:user"},
        headers={"Accept": "application/json", "User-Agent": EDITOR_HEADERS["User-Agent"]},
    )
    device = response_json(answer)
    if answer.status_code != 200 or not isinstance(device.get("device_code"), str):
        raise LoginError(f"GitHub did not start the device login: {error_words(device, answer.status_code)}")
    url = str(device.get("verification_uri") or "https://github.com/login/device")
    code = str(device.get("user_code") or "")
    prompts.show(f"Open {url} and enter the code {code}", url=url, code=code)
    given = device.get("interval")
    interval = float(given) if isinstance(given, int | float) and given >= 0 else 5.0
    deadline = asyncio.get_running_loop().time() + float(device.get("expires_in") or 900)
    while asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(interval)
        answer = await client.post(
            f"{base}/login/oauth/access_token",
            data={"client_id": CLIENT_ID, "device_code": device["device_code"], "grant_type": _DEVICE_GRANT},
            headers={"Accept": "application/json", "User-Agent": EDITOR_HEADERS["User-Agent"]},
        )
        data = response_json(answer)
        token = data.get("access_token")
        if isinstance(token, str) and token:
            return token
        error = data.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            # RFC 8628: every slow_down adds five seconds to the interval for good.
            slower = data.get("interval")
            interval = float(slower) if isinstance(slower, int | float) else interval + 5
            continue
        if error == "access_denied":
            raise LoginCancelled("The GitHub login was refused on GitHub's page.")
        if error == "expired_token":
            raise LoginError("The GitHub code expired before it was entered; start the login again.")
        raise LoginError(f"GitHub did not finish the device login: {error_words(data, answer.status_code)}")
    raise LoginError("The GitHub code expired before it was entered; start the login again.")


def _exchange_request(github_token: str) -> tuple[str, dict[str, str]]:
    headers = {"Accept": "application/json", "Authorization": f"Bearer {github_token}", **EDITOR_HEADERS}
    return f"{endpoint_base('github-api')}/copilot_internal/v2/token", headers


def _exchange_result(status: int, data: dict[str, Any]) -> dict[str, Any]:
    if status in (401, 403, 404):
        reason = "GitHub refused the stored token" if status != 404 else "this GitHub account has no Copilot"
        raise ReloginNeeded(relogin_message(PROVIDER, DISPLAY_NAME, f"{reason}: {error_words(data, status)}"))
    if status != 200 or not isinstance(data.get("token"), str):
        raise LoginError(f"GitHub did not issue a Copilot token: {error_words(data, status)}")
    return data


async def _exchange(client: Any, github_token: str) -> dict[str, Any]:
    url, headers = _exchange_request(github_token)
    answer = await client.get(url, headers=headers)
    return _exchange_result(answer.status_code, response_json(answer))


def api_base_from(token_answer: dict[str, Any]) -> str:
    """The Copilot API host: the answer's `endpoints.api`, else the token's `proxy-ep` field
    (`proxy.individual.githubcopilot.com` -> `api.individual.githubcopilot.com`)."""
    endpoints = token_answer.get("endpoints")
    if isinstance(endpoints, dict) and isinstance(endpoints.get("api"), str) and endpoints["api"]:
        return str(endpoints["api"]).rstrip("/")
    match = re.search(r"(?:^|;)proxy-ep=([^;]+)", str(token_answer.get("token") or ""))
    if match:
        return "https://" + re.sub(r"^proxy\.", "api.", match.group(1))
    return DEFAULT_API_BASE


def _credential(github_token: str, token_answer: dict[str, Any]) -> dict[str, Any]:
    expires_at = token_answer.get("expires_at")
    expires = int(expires_at) * 1000 - _EXPIRY_MARGIN_MS if isinstance(expires_at, int | float) else now_ms()
    return {
        "refresh": github_token,
        "access": token_answer["token"],
        "expires": expires,
        "baseUrl": api_base_from(token_answer),
    }


def refresh(current: dict[str, Any]) -> dict[str, Any] | None:
    """A new Copilot token for the stored GitHub token (blocking: it runs under the auth.json lock, in a
    thread). None when the stored one is still good (another process refreshed it)."""
    import httpx2

    from atomic.core.oauth.base import needs_refresh

    if not needs_refresh(current):
        return None
    github_token = current.get("refresh")
    if not isinstance(github_token, str) or not github_token:
        raise ReloginNeeded(relogin_message(PROVIDER, DISPLAY_NAME, "no GitHub token is stored"))
    url, headers = _exchange_request(github_token)
    try:
        with httpx2.Client(timeout=HTTP_TIMEOUT_S) as client:
            answer = client.get(url, headers=headers)
    except httpx2.HTTPError as exc:
        raise LoginError(f"Could not reach GitHub to renew the Copilot token: {type(exc).__name__}") from None
    fresh = _credential(github_token, _exchange_result(answer.status_code, response_json(answer)))
    return {**current, **fresh}


# ----------------------------------------------------------------------------- models


def wire_for(endpoints: list[str]) -> str:
    if "/v1/messages" in endpoints:
        return "anthropic-messages"
    if "/responses" in endpoints:
        return "openai-responses"
    return "openai-completions"


def model_from_listing(item: dict[str, Any]) -> dict[str, Any] | None:
    """A catalog model definition for one entry of `GET /models`, or None for what is not a chat model
    the person can pick."""
    capabilities = _object(item.get("capabilities"))
    if not isinstance(item.get("id"), str) or capabilities.get("type") not in (None, "chat"):
        return None
    if item.get("model_picker_enabled") is False:
        return None
    policy = item.get("policy")
    if isinstance(policy, dict) and policy.get("state") == "disabled":
        return None
    limits = _object(capabilities.get("limits"))
    supports = _object(capabilities.get("supports"))
    endpoints = [e for e in item.get("supported_endpoints") or [] if isinstance(e, str)]
    model: dict[str, Any] = {
        "id": item["id"],
        "name": str(item.get("name") or item["id"]),
        "api": wire_for(endpoints),
        "input": ["text", "image"] if supports.get("vision") else ["text"],
        "reasoning": bool(supports.get("reasoning_effort") or supports.get("adaptive_thinking")
                          or supports.get("max_thinking_budget")),
    }
    window = limits.get("max_context_window_tokens") or limits.get("max_prompt_tokens")
    if isinstance(window, int) and window > 0:
        model["contextWindow"] = window
    output = limits.get("max_output_tokens")
    if isinstance(output, int) and output > 0:
        model["maxTokens"] = output
    return model


async def _models(client: Any, credential: dict[str, Any]) -> list[dict[str, Any]]:
    """The subscription's chat models; an empty list (the catalog's then) when the listing fails."""
    headers = {"Authorization": f"Bearer {credential['access']}", "Accept": "application/json", **EDITOR_HEADERS}
    try:
        answer = await client.get(f"{credential['baseUrl']}/models", headers=headers)
    except Exception:
        return []
    data = response_json(answer)
    listed = data.get("data") if answer.status_code == 200 else None
    if not isinstance(listed, list):
        return []
    models = [m for m in (model_from_listing(i) for i in listed if isinstance(i, dict)) if m]
    # Claude and Gemini models start switched off on a new subscription; enabling them is what
    # the editors do on first use (best effort: a model that stays off answers with its own error).
    for item in listed:
        policy = item.get("policy") if isinstance(item, dict) else None
        if isinstance(policy, dict) and policy.get("state") not in (None, "enabled") and isinstance(item.get("id"), str):
            try:
                await client.post(f"{credential['baseUrl']}/models/{item['id']}/policy",
                                  json={"state": "enabled"}, headers=headers)
            except Exception:
                continue
    return models


# ----------------------------------------------------------------------------- requests


def request_headers(credential: dict[str, Any], messages: list[Any]) -> dict[str, str]:
    """What each Copilot request carries: the token as a bearer, the editor headers, who started this
    turn (`X-Initiator`: the person, or the agent continuing after tools) and whether images go."""
    from atomic.core.messages import AssistantMessage, ImageContent, ToolResultMessage, UserMessage

    last = messages[-1] if messages else None
    has_images = False
    for message in messages:
        if isinstance(message, UserMessage | ToolResultMessage | AssistantMessage) and not isinstance(
            message.content, str
        ):
            has_images = has_images or any(isinstance(block, ImageContent) for block in message.content)
    headers = {
        **EDITOR_HEADERS,
        "Authorization": f"Bearer {credential.get('access', '')}",
        "X-Initiator": "user" if isinstance(last, UserMessage) else "agent",
        "Openai-Intent": "conversation-edits",
    }
    if has_images:
        headers["Copilot-Vision-Request"] = "true"
    return headers
