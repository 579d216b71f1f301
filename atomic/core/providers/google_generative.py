"""Google's Gemini API: `POST <baseUrl>/models/<model>:streamGenerateContent?alt=sse`.

The key goes in the `x-goog-api-key` header. The body is built in `google_request.py` and the SSE
chunks are mapped in `google_stream.py` (Vertex AI's Gemini wire is the same, see
`google_vertex.py`). Errors read `429 RESOURCE_EXHAUSTED: <the server's message>`, and the wait a
429 asks for (`RetryInfo.retryDelay`) becomes the error's retry-after, which the retry settings
cap like any other.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import quote

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.google_request import build_body
from atomic.core.providers.google_stream import GeminiStream, google_error_text, retry_delay_s
from atomic.core.providers.http_stream import HttpCall, stream_http

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"


def stream_path(prefix: str, model_id: str) -> str:
    """`<prefix>/models/<model>:streamGenerateContent?alt=sse` (prefix may be empty)."""
    path = f"models/{quote(model_id, safe='@.-_')}:streamGenerateContent?alt=sse"
    return f"{prefix.strip('/')}/{path}" if prefix.strip("/") else path


def http_error(status: int, body: bytes, headers: Any, api_key: str | None) -> ProviderError:
    """`400 INVALID_ARGUMENT: <message>` for a non-200 answer (the body may be a one-item list)."""
    raw, data = http.read_error_body(body)
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    error = data.get("error") if isinstance(data, dict) else None
    text = google_error_text(error) if isinstance(error, dict) else raw or "(no body)"
    failure = http.status_error(status, f"{status} {text}", headers, api_key)
    delay = retry_delay_s(error)
    if failure.retry_after_s is None and delay is not None:
        failure.retry_after_s = delay
    return failure


# Resolves (url, headers) for one request (a Vertex token may need a refresh first).
Prepare = Callable[[], Awaitable[tuple[str, dict[str, str]]]]


def stream_gemini(request: StreamRequest, prepare: Prepare, secret: str | None) -> AsyncIterator[ProviderEvent]:
    """POST the Gemini body and map its SSE chunks (shared with Vertex AI)."""

    async def call() -> HttpCall:
        url, headers = await prepare()
        return HttpCall(url, headers, json.dumps(build_body(request)).encode())

    return stream_http(request, call, lambda _response: GeminiStream(), http_error, secret)


class GoogleGenerativeAIProvider:
    """`Provider` for api "google-generative-ai"."""

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        async def prepare() -> tuple[str, dict[str, str]]:
            base = request.model.base_url or DEFAULT_BASE_URL
            headers = {"content-type": "application/json", "accept": "text/event-stream"}
            if request.api_key:
                headers["x-goog-api-key"] = request.api_key
            url = http.join_url(base, stream_path("", request.model.id))
            return url, http.merge_headers(headers, request.headers)

        return stream_gemini(request, prepare, request.api_key)
