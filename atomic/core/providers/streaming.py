"""Small helpers shared by the SDK-backed providers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any


async def close_quietly(*closables: Any) -> None:
    """Close SDK streams and clients (in order) without a close error hiding the real outcome."""
    for closable in closables:
        if closable is None:
            continue
        try:
            await closable.close()
        except Exception:
            pass


async def sse_data_batches(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[bytes]]:
    """The `data:` payloads of an SSE byte stream, one list per network chunk.

    Splitting bytes ourselves and handing over a whole chunk's payloads at once avoids two layers of
    per-line async generators (the SDK's and httpx's), a real share of the per-delta cost. Other
    fields (`event:`, `id:`), comments and blank lines are dropped: every API Atomic reads repeats
    the event name inside the JSON. A line split across chunks is kept in pieces and joined once,
    so a very long line costs linear time.
    """
    pending: list[bytes] = []
    async for chunk in chunks:
        if b"\n" not in chunk:
            pending.append(chunk)
            continue
        lines = chunk.split(b"\n")
        if pending:
            pending.append(lines[0])
            lines[0] = b"".join(pending)
            pending = []
        tail = lines.pop()
        if tail:
            pending.append(tail)
        batch = [line[5:].strip() for line in lines if line.startswith(b"data:")]
        if batch:
            yield batch
    if pending:
        last = b"".join(pending)
        if last.startswith(b"data:"):
            yield [last[5:].strip()]
