"""Anthropic Messages API: `POST /v1/messages` streamed over HTTP with Atomic's own SSE reader.

The official `anthropic` SDK is not on this path: importing it costs more CPU (every type
module loads) than any warm-up can hide from a prompt sent two seconds after start on a 2-core
machine, and its typed stream events cost more per delta than the rest of the pipeline together
(figures in docs/performance.md). The wire is small: a JSON body, a few headers, SSE events whose
JSON this provider maps itself (anthropic_stream.py). The transport is `httpx2`, the HTTP client the
SDKs use, with one connection pool per event loop so turns reuse the open connection. Tests run the
official SDK against the same local servers to check both sides agree on the wire.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from atomic.core.providers import http
from atomic.core.providers.anthropic_request import API, build_params, convert_messages
from atomic.core.providers.anthropic_stream import AnthropicStreamState
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.http import http_pool, warm_up
from atomic.core.providers.http_stream import ErrorFor, HttpCall, stream_http

__all__ = ["API", "AnthropicMessagesProvider", "build_params", "convert_messages", "http_pool", "warm_up"]

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_BASE_URL = "https://api.anthropic.com"


def endpoint(request: StreamRequest) -> tuple[str, dict[str, str]]:
    """The URL and headers for one request (the model's extra headers win)."""
    base = request.model.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    headers = {
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        "accept": "application/json",
    }
    key = request.api_key or ""
    if any(name.lower() == "authorization" for name in request.headers):
        # The bearer comes with the headers (a subscription login such as Copilot's): no x-api-key beside it.
        key = ""
    if key.startswith("sk-ant-oat"):
        # Claude subscription (OAuth) tokens authenticate as a bearer token, not x-api-key.
        headers["authorization"] = f"Bearer {key}"
    elif key:
        headers["x-api-key"] = key
    # Without a key, header-only auth (a proxy's Authorization header) still goes through.
    headers.update(request.headers)
    return http.join_url(base, "v1/messages"), headers


def http_error(status: int, body: bytes, headers: Any, api_key: str | None) -> ProviderError:
    """A readable error for a non-200 answer: `400 invalid_request_error: <the server's message>`."""
    text, data = http.read_error_body(body)
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        text = f"{error.get('type') or 'error'}: {error['message']}"
        if isinstance(data, dict) and data.get("request_id"):
            text += f" (request id {data['request_id']})"
    return http.status_error(status, f"{status} {text or '(no body)'}", headers, api_key)


# Builds (url, headers, JSON body) for one request; called inside the stream so its errors are classified.
Prepare = Callable[[], Awaitable[tuple[str, dict[str, str], dict[str, Any]]]]


def stream_messages(
    request: StreamRequest,
    prepare: Prepare,
    secret: str | None,
    error_for: ErrorFor = http_error,
) -> AsyncIterator[ProviderEvent]:
    """POST a Messages body and map its SSE events (shared with Claude on Vertex AI)."""

    async def call() -> HttpCall:
        url, headers, body = await prepare()
        return HttpCall(url, headers, json.dumps(body).encode())

    return stream_http(request, call, lambda _response: AnthropicStreamState(), error_for, secret)


class AnthropicMessagesProvider:
    """`Provider` for api "anthropic-messages"."""

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        async def prepare() -> tuple[str, dict[str, str], dict[str, Any]]:
            url, headers = endpoint(request)
            return url, headers, {**build_params(request), "stream": True}

        return stream_messages(request, prepare, request.api_key)
