"""Watching an MCP transport from outside the SDK: its end, its HTTP answers, its process.

The SDK notices a dead server only when a request fails, so a server that died while idle still
looked connected and the next call failed. Three small observers tell the connection earlier:

- `watch_streams` wraps a transport so the end of its read stream (stdio EOF, the end of an SSE
  stream) is reported at once;
- `WatchedHttpTransport` sits under the HTTP client: it remembers the status of the last answer to
  a request that carried a session id (a 404 there means the server forgot the session) and
  reports a refused connection (the server is gone: the SDK's GET stream reconnects and fails);
- `capture_spawned` records the stdio server's process, for its exit code and pid (start-up
  failure detail, progress while it starts, and a kill when a stop does not finish).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import AsyncIterator, Callable
from typing import Any

SESSION_HEADER = "mcp-session-id"

# Set by the task that opens a stdio server; the spawn hook hands the process to it.
_spawn_sink: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "atomic_mcp_spawn_sink", default=None
)


def install_spawn_hook(stdio_module: Any) -> None:
    """Wrap the SDK's process spawn once so `capture_spawned` sees each process it starts.

    The SDK has no public hook for this; when a release renames the function, exit codes and the
    last-resort kill are simply not available (nothing else changes)."""
    original = getattr(stdio_module, "_create_platform_compatible_process", None)  # foreign: the SDK's module
    if original is None or getattr(original, "atomic_hooked", False):  # foreign: the SDK's function or ours
        return

    async def spawn(*args: Any, **kwargs: Any) -> Any:
        process = await original(*args, **kwargs)
        sink = _spawn_sink.get()
        if sink is not None:
            sink(process)
        return process

    spawn.atomic_hooked = True  # type: ignore[attr-defined]
    stdio_module._create_platform_compatible_process = spawn


@contextlib.contextmanager
def capture_spawned(sink: Callable[[Any], None]) -> Any:
    token = _spawn_sink.set(sink)
    try:
        yield
    finally:
        _spawn_sink.reset(token)


class _WatchedReadStream:
    """The transport's read stream, reporting each item and its end."""

    def __init__(self, inner: Any, on_item: Callable[[Any], None], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_item = on_item
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:
        # The dispatcher reads optional attributes (the sender's context) from the stream.
        return getattr(self._inner, name)  # foreign: the SDK's stream

    async def __aenter__(self) -> _WatchedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            item = await self._inner.__anext__()
        except StopAsyncIteration:
            self._on_end()
            raise
        except BaseException as exc:
            if type(exc).__name__ in ("ClosedResourceError", "EndOfStream", "BrokenResourceError"):
                self._on_end()
            raise
        self._on_item(item)
        return item

    async def receive(self) -> Any:
        return await self.__anext__()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()


@contextlib.asynccontextmanager
async def watch_streams(
    transport: Any, *, on_item: Callable[[Any], None], on_end: Callable[[], None]
) -> AsyncIterator[tuple[Any, Any]]:
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_item, on_end), write_stream


def watched_http_transport(httpx: Any, on_refused: Callable[[], None], on_answer: Callable[[], None]) -> Any:
    """An HTTP transport (of the SDK's `httpx2`) that records what the connection needs to know."""

    class WatchedHttpTransport(httpx.AsyncHTTPTransport):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            # The status of the last answer to a request inside a session (None before one), and
            # of the last answer at all (a 401 at start-up means the server wants a login).
            self.session_status: int | None = None
            self.last_status: int | None = None
            self.saw_unauthorized = False

        async def handle_async_request(self, request: Any) -> Any:
            try:
                response = await super().handle_async_request(request)
            except httpx.ConnectError:
                on_refused()
                raise
            self.last_status = response.status_code
            if response.status_code == 401:
                self.saw_unauthorized = True
            if SESSION_HEADER in request.headers:
                self.session_status = response.status_code
            on_answer()
            return response

    return WatchedHttpTransport()
