"""The one streamed request every HTTP provider makes; each API brings only its request and its mapping.

A provider's `stream()` is `stream_http(...)` with three things of its own:
- `prepare`: the URL, headers and JSON body of the request (called inside the stream, so a failed
  token refresh or a missing setting is classified like any other error);
- `error_for`: how the API words a non-200 answer (the status, the Retry-After wait and the secret
  scrubbing are `http.status_error`'s);
- `new_state`: the API's event mapping, fed the data of each SSE event (or each frame, with another
  `frames` reader) and asked to `finish()` once the body ended.

What is shared: posting on the loop's connection pool, the status check, reading the body to its
end (the connection goes back to the pool), closing it on abort or error (`CancelledError` passes
through untouched), classifying every other failure into a `ProviderError` with the secret removed.
The assembler (atomic/core/agent/assembler.py) emits the message's start, end and error events, so
no provider does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.errors import classify_error
from atomic.core.providers.sse import iter_sse_batches

Item = TypeVar("Item", contravariant=True)
Frame = TypeVar("Frame")


@dataclass(frozen=True)
class HttpCall:
    url: str
    headers: dict[str, str]
    body: bytes


class StreamState(Protocol[Item]):
    """One response's event mapping."""

    def feed(self, item: Item) -> list[ProviderEvent]: ...

    def finish(self) -> list[ProviderEvent]: ...


ErrorFor = Callable[[int, bytes, Any, str | None], ProviderError]
Frames = Callable[[AsyncIterator[bytes]], AsyncIterator[Iterable[Frame]]]


async def stream_http(
    request: StreamRequest,
    prepare: Callable[[], Awaitable[HttpCall]],
    new_state: Callable[[Any], StreamState[Frame]],
    error_for: ErrorFor,
    secret: str | None,
    frames: Frames[Frame] = iter_sse_batches,  # type: ignore[assignment]
) -> AsyncIterator[ProviderEvent]:
    """POST the prepared request and yield the mapped events; `new_state` gets the 200 response."""
    response: Any = None
    try:
        call = await prepare()
        response = await http.post_stream(request, call.url, call.headers, call.body)
        if response.status_code != 200:
            raise error_for(response.status_code, await response.aread(), response.headers, secret)
        state = new_state(response)
        feed = state.feed
        # One batch per chunk read: an async step per chunk, not per event.
        async for batch in frames(response.aiter_bytes()):
            for item in batch:
                for event in feed(item):
                    yield event
        for event in state.finish():
            yield event
    except Exception as exc:  # CancelledError / GeneratorExit are BaseException: they pass through
        raise classify_error(exc, api_key=secret) from exc
    finally:
        if response is not None:
            await http.close(response)
