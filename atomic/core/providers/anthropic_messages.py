"""Anthropic Messages API: `POST /v1/messages` streamed over HTTP with Atomic's own SSE reader.

The official `anthropic` SDK is not on this path: importing it costs ~1.8 s of CPU (every type
module loads), which no warm-up can hide from a prompt sent two seconds after start on a 2-core
machine, and its typed stream events cost more per delta than the rest of the pipeline together
(figures in docs/performance.md). The wire is small: a JSON body, a few headers, SSE events whose
JSON this provider maps itself (anthropic_stream.py). The transport is `httpx2`, the HTTP client the
SDKs use, with one connection pool per event loop so turns reuse the open connection. Tests run the
official SDK against the same local servers to check both sides agree on the wire.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any

from atomic.core.providers.anthropic_request import API, build_params, convert_messages
from atomic.core.providers.anthropic_stream import AnthropicStreamState
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.errors import (
    classify_error,
    classify_status,
    parse_retry_after,
    scrub_secret,
)
from atomic.core.providers.sse import iter_sse_data

__all__ = ["API", "AnthropicMessagesProvider", "build_params", "convert_messages"]

ANTHROPIC_VERSION = "2023-06-01"
DEFAULT_BASE_URL = "https://api.anthropic.com"
# The SDK's defaults: ten minutes for a long reply, five seconds to connect.
DEFAULT_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 5.0
_MAX_ERROR_CHARS = 2000

# One pool per event loop: a pool's connections belong to the loop that opened them.
_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
# A pool built by `warm_up` (no loop yet); the first loop that needs one adopts it.
_prebuilt: list[Any] = []
_prebuilt_lock = threading.Lock()


def _new_pool() -> Any:
    import httpx2

    return httpx2.AsyncClient(
        follow_redirects=True,
        limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
    )


def warm_up() -> None:
    """Load what the first request needs, off the event loop (call it from a thread): the HTTP
    stack's modules, including those it imports only when the first connection opens, and a
    connection pool (its TLS context alone costs ~0.1 s). About 0.2 s of CPU in all."""
    import anyio._core._sockets  # noqa: F401
    import anyio.lowlevel  # noqa: F401
    import anyio.streams.memory  # noqa: F401
    import anyio.streams.stapled  # noqa: F401
    import anyio.streams.tls  # noqa: F401
    import h11  # noqa: F401
    import httpcore2  # noqa: F401

    with _prebuilt_lock:
        if _prebuilt:
            return
    pool = _new_pool()
    with _prebuilt_lock:
        if not _prebuilt:
            _prebuilt.append(pool)


def http_pool() -> Any:
    """The running loop's HTTP client for Anthropic requests, built on first use."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        with _prebuilt_lock:
            pool = _prebuilt.pop() if _prebuilt else None
        if pool is None:
            pool = _new_pool()
        _pools[loop] = pool
    return pool


def endpoint(request: StreamRequest) -> tuple[str, dict[str, str]]:
    """The URL and headers for one request (the model's extra headers win)."""
    base = request.model.base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL
    headers = {
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        "accept": "application/json",
    }
    key = request.api_key or ""
    if key.startswith("sk-ant-oat"):
        # Claude subscription (OAuth) tokens authenticate as a bearer token, not x-api-key.
        headers["authorization"] = f"Bearer {key}"
    elif key:
        headers["x-api-key"] = key
    # Without a key, header-only auth (a proxy's Authorization header) still goes through.
    headers.update(request.headers)
    return base.rstrip("/") + "/v1/messages", headers


def http_error(status: int, body: bytes, headers: Any, api_key: str | None) -> ProviderError:
    """A readable error for a non-200 answer: `400 invalid_request_error: <the server's message>`."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and error.get("message"):
        text = f"{error.get('type') or 'error'}: {error['message']}"
        if isinstance(data, dict) and data.get("request_id"):
            text += f" (request id {data['request_id']})"
    message = f"{status} {text or '(no body)'}"
    return ProviderError(
        scrub_secret(message[:_MAX_ERROR_CHARS], api_key),
        kind=classify_status(status, message),
        status=status,
        retry_after_s=parse_retry_after(headers),
    )


def _timeout(request: StreamRequest) -> Any:
    import httpx2

    if request.timeout_s is not None:
        return httpx2.Timeout(request.timeout_s)
    return httpx2.Timeout(DEFAULT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)


def undecodable(data: str, reason: str) -> ProviderError:
    return ProviderError(f"Could not decode the server's stream ({reason}): {data[:200]}", kind="fatal")


class AnthropicMessagesProvider:
    """`Provider` for api "anthropic-messages"."""

    async def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        response: Any = None
        try:
            url, headers = endpoint(request)
            body = json.dumps({**build_params(request), "stream": True}).encode()
            pool = http_pool()
            outgoing = pool.build_request("POST", url, content=body, headers=headers, timeout=_timeout(request))
            response = await pool.send(outgoing, stream=True)
            if response.status_code != 200:
                raise http_error(response.status_code, await response.aread(), response.headers, request.api_key)
            state = AnthropicStreamState()
            async for data in iter_sse_data(response.aiter_bytes()):
                try:
                    event = json.loads(data)
                except ValueError as exc:
                    raise undecodable(data, "invalid JSON") from exc
                if not isinstance(event, dict):
                    raise undecodable(data, "not an event object")
                try:
                    events = state.handle(event)
                except (KeyError, TypeError, AttributeError, ValueError) as exc:
                    raise undecodable(data, f"unexpected {type(exc).__name__}: {exc}") from exc
                for out in events:
                    yield out
            for out in state.finish():
                yield out
        except Exception as exc:  # CancelledError / GeneratorExit are BaseException: they pass through
            raise classify_error(exc, api_key=request.api_key) from exc
        finally:
            if response is not None:
                try:
                    await response.aclose()
                except Exception:
                    pass
