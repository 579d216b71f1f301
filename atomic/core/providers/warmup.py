"""The provider warm-up: what the first request needs is loaded in a daemon thread, never on the
event loop.

Loading a provider's modules and building its connection pool costs a noticeable share of a CPU
second (docs/performance.md; reading the CA bundle waits for the first `https` request:
providers/http_stack.py), more under load, so it never happens on the event loop: `start_warmup(api, warm)`
runs the api's `warm_up` in a daemon thread (a process that exits never waits for it);
`await wait_warmup(future)` waits for that thread without blocking the loop. The connection pools
themselves live in `providers/http.py`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable

_lock = threading.Lock()

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
