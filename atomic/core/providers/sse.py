"""Server-sent events read straight from an HTTP body, and the JSON each event carries.

Providers stream one JSON object per SSE event. Parsing the byte stream here costs a fraction of
what an SDK's typed event objects cost per delta (see docs/performance.md), and it needs nothing
beyond the HTTP client. Only `data:` fields matter to the APIs Atomic speaks: event names, ids,
`retry:` and comments are skipped.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import AsyncIterator
from typing import Any

from atomic.core.providers.base import ProviderError

_scan_once = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # set in __init__, not in the stubs


def parse_json(data: str) -> Any:
    """`json.loads(data)`, without its two whitespace passes when the text is one bare value
    (every event a server sends): one call per streamed delta. Raises ValueError like loads."""
    try:
        value, end = _scan_once(data, 0)
    except StopIteration:
        return json.loads(data)  # leading whitespace, or not JSON: loads decides and words the error
    if end != len(data):
        return json.loads(data)
    return value


def data_json(data: str) -> Any:
    """The JSON value of one event's data; data that is not JSON ends the turn."""
    try:
        return parse_json(data)
    except ValueError:
        raise ProviderError(f"The server sent data that is not JSON: {data[:200]!r}", kind="fatal") from None


async def iter_sse_batches(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[str]]:
    """Yield, per chunk of the body, the data of each event it completed (several `data:` lines
    joined by a newline); a chunk that completes none yields nothing.

    One batch per chunk keeps the async machinery (a step of each generator on the way) per chunk
    read instead of per event. The body is decoded as UTF-8 chunk by chunk (a character split
    between chunks is fine; an invalid byte becomes U+FFFD). Lines may end in LF or CRLF and chunks
    may split lines anywhere. Data left without its closing blank line when the body ends is still
    yielded: the caller decides whether the stream finished properly (a missing stop event), not
    the framing.
    """
    decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
    pending = ""
    data: list[str] = []
    async for chunk in chunks:
        text = decode(chunk)
        if pending:
            text = pending + text
        lines = text.split("\n")
        pending = lines.pop()
        batch: list[str] = []
        for line in lines:
            if line[-1:] == "\r":
                line = line[:-1]
            if not line:
                if data:
                    batch.append(data[0] if len(data) == 1 else "\n".join(data))
                    data = []
            elif line[:5] == "data:":
                data.append(line[6:] if line[5:6] == " " else line[5:])
        if batch:
            yield batch
    pending += decode(b"", final=True)
    if pending[:5] == "data:":
        data.append(pending[6:] if pending[5:6] == " " else pending[5:])
    if data:
        yield ["\n".join(data)]
