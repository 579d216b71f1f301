"""The ChatGPT Codex endpoint (`openai-codex-responses`): the Responses API behind a ChatGPT
subscription login (atomic/core/oauth/openai_codex.py).

Same input items and SSE events as `openai-responses`, with the endpoint's differences:
- URL: `<baseUrl>/codex/responses` (base `https://chatgpt.com/backend-api`; a base already ending
  in `/codex` or `/codex/responses` is used as it is).
- Headers: the login's bearer token and `chatgpt-account-id` (from the login's headers),
  `OpenAI-Beta: responses=experimental`, `originator`, the session id, `accept: text/event-stream`.
- Body: `store: false` always, no `max_output_tokens` (the endpoint refuses it), `text.verbosity`,
  `tool_choice: auto`, parallel tool calls, encrypted reasoning always included so it replays.
- Stream: the endpoint may end with `response.done` instead of `response.completed`.
- A 429 `usage_limit_reached` is the subscription's limit: said plainly, and not retried (it lasts
  hours, not seconds).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.http_stream import HttpCall, stream_http
from atomic.core.providers.openai_http import http_error
from atomic.core.providers.openai_responses import build_body
from atomic.core.providers.responses_stream import ResponsesStream

API = "openai-codex-responses"
DEFAULT_BASE_URL = "https://chatgpt.com/backend-api"
ORIGINATOR = "atomic"


def codex_url(base: str) -> str:
    root = (base or DEFAULT_BASE_URL).rstrip("/")
    if root.endswith("/codex/responses"):
        return root
    if root.endswith("/codex"):
        return root + "/responses"
    return root + "/codex/responses"


def build_codex_body(request: StreamRequest) -> dict[str, Any]:
    body = build_body(request)
    body.pop("max_output_tokens", None)
    body["store"] = False
    body["text"] = {"verbosity": "medium"}
    body["tool_choice"] = "auto"
    body["parallel_tool_calls"] = True
    body["include"] = ["reasoning.encrypted_content"]
    return body


def codex_headers(request: StreamRequest) -> dict[str, str]:
    headers = {
        "authorization": f"Bearer {request.api_key or ''}",
        "content-type": "application/json",
        "accept": "text/event-stream",
        "openai-beta": "responses=experimental",
        "originator": ORIGINATOR,
    }
    if request.session_id:
        headers["session_id"] = request.session_id
    return http.merge_headers(headers, request.headers)


def codex_error(status: int, body: bytes, headers: Any, api_key: str | None) -> ProviderError:
    _, data = http.read_error_body(body)
    error = data.get("error") if isinstance(data, dict) else None
    if status == 429 and isinstance(error, dict) and error.get("code") in ("usage_limit_reached", "usage_not_included"):
        plan = f" ({error['plan_type']})" if isinstance(error.get("plan_type"), str) else ""
        wait = error.get("resets_in_seconds")
        when = f" It resets in about {max(1, round(wait / 60))} min." if isinstance(wait, int | float) else ""
        text = error.get("message") if isinstance(error.get("message"), str) else "usage limit reached"
        return ProviderError(
            f"429 You have reached your ChatGPT subscription's usage limit{plan}: {text}.{when}", kind="fatal",
            status=status,
        )
    return http_error(status, body, headers, api_key)


class CodexResponsesStream(ResponsesStream):
    """The Responses events, with the endpoint's closing `response.done` read as `response.completed`."""

    def feed(self, data: str) -> list[ProviderEvent]:
        return super().feed(_as_completed(data))


class OpenAICodexResponsesProvider:
    """`Provider` for api "openai-codex-responses"."""

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        async def call() -> HttpCall:
            body = json.dumps(build_codex_body(request)).encode()
            return HttpCall(codex_url(request.model.base_url), codex_headers(request), body)

        return stream_http(request, call, lambda _response: CodexResponsesStream(), codex_error, request.api_key)


def _as_completed(data: str) -> str:
    # The endpoint's closing event carries the whole response like `response.completed` does.
    if '"response.done"' not in data:
        return data
    try:
        event = json.loads(data)
    except ValueError:
        return data
    if isinstance(event, dict) and event.get("type") == "response.done":
        event["type"] = "response.completed"
        return json.dumps(event)
    return data
