"""What both OpenAI APIs send besides their body: the URL, the headers and the error for a non-200
answer, the same as OpenAI's own client library sends (docs/performance.md says why that library
is not used).

- Base URL: the model's, else `OPENAI_BASE_URL`, else `https://api.openai.com/v1`; the API path is
  appended to it (`…/v1` + `/chat/completions`), a query string of the base stays at the end.
- Headers: `Authorization: Bearer <key>` (a placeholder key for local servers that need none, as
  OpenAI's client sends one), JSON content type, `OpenAI-Organization` / `OpenAI-Project` from
  `OPENAI_ORG_ID` / `OPENAI_PROJECT_ID`, the `OPENAI_CUSTOM_HEADERS` lines ("Name: value"), then the
  model's own headers, which win (a models.json `Authorization` replaces the bearer key).
- Errors: `<status> <code>: <message>` from the body's `error` object (OpenRouter adds the upstream
  provider's words), else the status and the raw body; Retry-After / retry-after-ms kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, StreamRequest
from atomic.core.providers.completions_stream import error_text
from atomic.core.providers.http_stream import HttpCall

DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, llama.cpp) take any key; an empty bearer token would be malformed.
PLACEHOLDER_KEY = "no-key"


def _environment_headers() -> dict[str, str]:
    headers: dict[str, str] = {}
    organization = os.environ.get("OPENAI_ORG_ID")
    if organization:
        headers["OpenAI-Organization"] = organization
    project = os.environ.get("OPENAI_PROJECT_ID")
    if project:
        headers["OpenAI-Project"] = project
    for line in os.environ.get("OPENAI_CUSTOM_HEADERS", "").split("\n"):
        name, colon, value = line.partition(":")
        if colon and name.strip():
            headers[name.strip()] = value.strip()
    return headers


def endpoint(request: StreamRequest, path: str) -> tuple[str, dict[str, str]]:
    """The URL for `path` (e.g. "chat/completions") and the request headers."""
    base = request.model.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    headers = {
        "authorization": f"Bearer {request.api_key or PLACEHOLDER_KEY}",
        "content-type": "application/json",
        "accept": "application/json",
    }
    headers = http.merge_headers(http.merge_headers(headers, _environment_headers()), request.headers)
    return http.join_url(base, path), headers


def http_error(status: int, body: bytes, headers: Any, api_key: str | None) -> ProviderError:
    """`429 rate_limit_exceeded: Rate limit reached…` for a non-200 answer."""
    raw, data = http.read_error_body(body)
    error = data.get("error", data) if isinstance(data, dict) else None
    raw_message = f"{status} {raw or '(no body)'}"
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        text, _ = error_text(error)
        # The kind still comes from the whole body: a `code` such as context_length_exceeded counts.
        return http.status_error(status, f"{status} {text}", headers, api_key, kind_text=raw_message)
    return http.status_error(status, raw_message, headers, api_key)


def openai_call(request: StreamRequest, path: str, body: dict[str, Any]) -> HttpCall:
    """The request that POSTs the JSON body to the API path."""
    url, headers = endpoint(request, path)
    return HttpCall(url, headers, json.dumps(body).encode())


@dataclass(frozen=True)
class OpenAIEndpoint:
    """Where an OpenAI body goes (OpenAI's own API, Azure's resources) and the secret its errors hide."""

    call: Callable[[StreamRequest, str, dict[str, Any]], HttpCall]
    secret: Callable[[StreamRequest], str | None]


OPENAI = OpenAIEndpoint(openai_call, lambda request: request.api_key)
