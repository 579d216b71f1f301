"""The HTTP side every built-in provider shares: one `httpx2` connection pool per event loop, the
warm-up that loads the HTTP stack off the loop, timeouts, URL joining and the error for a non-200
answer.

Each provider builds its JSON body and headers, posts them here and reads the SSE body with
`providers/sse.py` (docs/performance.md says why no vendor library sits on this path). A pool's connections belong to the loop that opened them,
so there is one pool per loop; every turn on that loop reuses its open connections.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
import weakref
from collections.abc import Mapping
from typing import Any

from atomic.core.providers.base import ProviderError, StreamRequest
from atomic.core.providers.errors import classify_status, parse_retry_after, scrub_secret
from atomic.core.providers.http_stack import import_httpx, tls_context, trust_hook

# The SDKs' defaults: ten minutes for a long reply, five seconds to connect.
DEFAULT_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 5.0
MAX_ERROR_CHARS = 2000

_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
# A pool built by `warm_up` (no loop yet); the first loop that needs one adopts it.
_prebuilt: list[Any] = []
_prebuilt_lock = threading.Lock()


def _new_pool() -> Any:
    httpx2 = import_httpx()
    verify = tls_context()
    hooks = {"request": [trust_hook(verify)]} if isinstance(verify, ssl.SSLContext) else {}
    return httpx2.AsyncClient(
        follow_redirects=True,
        limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
        verify=verify,
        event_hooks=hooks,
    )


def warm_up() -> None:
    """Load what the first request needs, off the event loop (call it from a thread): the HTTP
    stack's modules, including those it imports only when the first connection opens, and a
    connection pool. The pool's CAs load before its first `https` request (http_stack.py)."""
    import_httpx()
    import anyio._backends._asyncio  # noqa: F401
    import anyio._core._sockets  # noqa: F401
    import anyio.lowlevel  # noqa: F401
    import anyio.streams.memory  # noqa: F401
    import anyio.streams.stapled  # noqa: F401
    import anyio.streams.tls  # noqa: F401
    import h11  # noqa: F401

    with _prebuilt_lock:
        if _prebuilt:
            return
    pool = _new_pool()
    with _prebuilt_lock:
        if not _prebuilt:
            _prebuilt.append(pool)


def http_pool() -> Any:
    """The running loop's HTTP client, built on first use (or adopted from the warm-up)."""
    loop = asyncio.get_running_loop()
    pool = _pools.get(loop)
    if pool is None:
        with _prebuilt_lock:
            pool = _prebuilt.pop() if _prebuilt else None
        if pool is None:
            pool = _new_pool()
        _pools[loop] = pool
    return pool


def join_url(base: str, path: str) -> str:
    """`base` + `/path`, keeping a query string of the base at the end (`…/v1?api-version=x`)."""
    root, mark, query = base.partition("?")
    return root.rstrip("/") + "/" + path.lstrip("/") + mark + query


def merge_headers(defaults: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """`defaults` under `extra`, by case-insensitive name: a model's `Authorization` replaces ours
    instead of going out as a second header."""
    merged = {name.lower(): value for name, value in defaults.items()}
    for name, value in extra.items():
        merged[name.lower()] = value
    return merged


def request_timeout(request: StreamRequest) -> Any:
    import httpx2

    if request.timeout_s is not None:
        return httpx2.Timeout(request.timeout_s)
    return httpx2.Timeout(DEFAULT_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)


def read_error_body(body: bytes) -> tuple[str, Any]:
    """An error answer's text (stripped) and its JSON value (None when it is not JSON)."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        return text, json.loads(text)
    except ValueError:
        return text, None


def status_error(
    status: int, message: str, headers: Any, api_key: str | None, kind_text: str | None = None
) -> ProviderError:
    """The error for a non-200 answer: `message` (already `<status> …`) cut and scrubbed, its kind
    from the status and `kind_text` (default: the message) and the server's Retry-After."""
    return ProviderError(
        scrub_secret(message[:MAX_ERROR_CHARS], api_key),
        kind=classify_status(status, message if kind_text is None else kind_text),
        status=status,
        retry_after_s=parse_retry_after(headers),
    )


async def post_stream(request: StreamRequest, url: str, headers: dict[str, str], body: bytes) -> Any:
    """POST `body` and return the streamed response; the caller reads it and must `close` it.
    A non-200 response is returned too (status and unread body): each API words its errors."""
    pool = http_pool()
    outgoing = pool.build_request("POST", url, content=body, headers=headers, timeout=request_timeout(request))
    return await pool.send(outgoing, stream=True)


async def close(response: Any) -> None:
    """Close a streamed response (its connection goes back to the pool, or is dropped mid-body)."""
    try:
        await response.aclose()
    except Exception:  # closing after a failed read: nothing left to report
        pass
