"""SDK clients built once and reused, and the provider warm-up that runs off the event loop.

Building an SDK client costs 40-50 ms (most of it the TLS context of a new HTTP connection pool)
and about 100 KB; building one per call also threw the connection away after every turn. Here an
SDK client is built once per event loop, SDK and options (base URL, key, headers, timeout) and all
clients of one SDK on one loop share one HTTP connection pool, so a second turn reuses the open
connection.

Importing a provider SDK costs up to seconds of CPU, so it never happens on the event
loop: `start_warmup(api)` imports the provider and its SDK in a daemon thread (a process that exits
never waits for it) and prebuilds the connection pool; `await ensure_ready(api)` waits for that
thread without blocking the loop, starting it if nobody did.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

ClientT = TypeVar("ClientT")

# ----------------------------------------------------------------------------- HTTP pools


def _openai_http_client() -> Any:
    from openai import DefaultAsyncHttpxClient

    return DefaultAsyncHttpxClient()


_HTTP_FACTORIES: dict[str, Callable[[], Any]] = {
    "openai": _openai_http_client,
}

_lock = threading.Lock()
# Pools built by a warm-up thread, before any loop asked; the first loop that asks adopts one.
_prebuilt_http: dict[str, Any] = {}
# Per event loop (a pool's connections belong to the loop that opened them): sdk -> pool, and
# (sdk, frozen options) -> SDK client.
_http_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, Any]] = weakref.WeakKeyDictionary()
_clients_by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[Any, ...], Any]] = (
    weakref.WeakKeyDictionary()
)
# Distinct keys stay few (a key or base URL changes rarely); the bound keeps a misbehaving
# caller from growing the cache without end.
MAX_CLIENTS_PER_LOOP = 32


def import_http_stack() -> None:
    """Import the HTTP stack's modules that load only when the first connection opens."""
    import anyio._backends._asyncio  # noqa: F401
    import anyio._core._sockets  # noqa: F401
    import anyio.lowlevel  # noqa: F401
    import anyio.streams.memory  # noqa: F401
    import anyio.streams.stapled  # noqa: F401
    import anyio.streams.tls  # noqa: F401
    import h11  # noqa: F401
    import httpcore2  # noqa: F401


def prebuild_http_client(sdk: str) -> None:
    """Build the connection pool for `sdk` now (called from the warm-up thread)."""
    with _lock:
        if sdk in _prebuilt_http:
            return
    pool = _HTTP_FACTORIES[sdk]()
    with _lock:
        _prebuilt_http.setdefault(sdk, pool)


def warm_client(sdk: str, build: Callable[..., Any]) -> None:
    """Build a throwaway SDK client on the prebuilt pool and read its headers: the SDK computes its
    platform headers (a few `platform` calls) once, on first use."""
    with _lock:
        pool = _prebuilt_http.get(sdk)
    if pool is not None:
        build(api_key="warm-up", http_client=pool).default_headers  # noqa: B018


def warm_openai_sdk() -> None:
    """The part of the warm-up both OpenAI APIs share: the HTTP stack, the pool and one client."""
    from openai import AsyncOpenAI

    import_http_stack()
    prebuild_http_client("openai")
    warm_client("openai", AsyncOpenAI)


def _http_client(sdk: str, loop: asyncio.AbstractEventLoop) -> Any:
    pools = _http_by_loop.setdefault(loop, {})
    pool = pools.get(sdk)
    if pool is None:
        with _lock:
            pool = _prebuilt_http.pop(sdk, None)
        if pool is None:
            pool = _HTTP_FACTORIES[sdk]()
        pools[sdk] = pool
    return pool


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((str(k), _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def cached_client(sdk: str, options: dict[str, Any], build: Callable[..., ClientT]) -> ClientT:
    """The SDK client for these constructor options on the running loop, built on first use.

    `sdk` names the pool's factory ("openai"); `build` is the SDK's client class. Callers must not close
    the client (closing it would close the shared pool); they close their streams and responses.
    """
    loop = asyncio.get_running_loop()
    clients = _clients_by_loop.setdefault(loop, {})
    key = (sdk, build, _freeze(options))
    client = clients.get(key)
    if client is None:
        if len(clients) >= MAX_CLIENTS_PER_LOOP:
            clients.pop(next(iter(clients)))
        client = build(**options, http_client=_http_client(sdk, loop))
        clients[key] = client
    return client


def cached_client_count() -> int:
    """How many SDK clients the running loop holds (for tests and diagnostics)."""
    return len(_clients_by_loop.get(asyncio.get_running_loop(), {}))


# ----------------------------------------------------------------------------- warm-up

_warmups: dict[str, concurrent.futures.Future[None]] = {}


def start_warmup(api: str, warm: Callable[[], None]) -> concurrent.futures.Future[None]:
    """Run `warm` for `api` once, in a daemon thread; returns the future of that one run."""
    with _lock:
        future = _warmups.get(api)
        if future is not None:
            return future
        future = concurrent.futures.Future()
        _warmups[api] = future

    def run() -> None:
        future.set_running_or_notify_cancel()  # from now on nobody can cancel it under us
        try:
            warm()
        except BaseException as exc:  # reported to whoever waits; the provider then fails on its own
            future.set_exception(exc)
        else:
            future.set_result(None)

    threading.Thread(target=run, name=f"atomic-warmup-{api}", daemon=True).start()
    return future


async def wait_warmup(future: concurrent.futures.Future[None]) -> None:
    """Wait for a warm-up without blocking the loop; its failure is not ours to report."""
    if future.done():
        return
    try:
        await asyncio.shield(asyncio.wrap_future(future))
    except asyncio.CancelledError:
        raise
    except Exception:
        pass
