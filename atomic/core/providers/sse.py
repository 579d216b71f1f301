"""Server-sent events read straight from an HTTP body.

Providers stream one JSON object per SSE event. Parsing the byte stream here costs a fraction of
what an SDK's typed event objects cost per delta (see docs/performance.md), and it needs nothing
beyond the HTTP client. Only `data:` fields matter to the APIs Atomic speaks: event names, ids,
`retry:` and comments are skipped.
"""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator


async def iter_sse_data(chunks: AsyncIterator[bytes]) -> AsyncIterator[str]:
    """Yield the data of each event (several `data:` lines joined by a newline).

    The body is decoded as UTF-8 chunk by chunk (a character split between chunks is fine; an
    invalid byte becomes U+FFFD). Lines may end in LF or CRLF and chunks may split lines
    anywhere. Data left without its closing blank line when the body ends is still yielded: the
    caller decides whether the stream finished properly (a missing stop event), not the framing.
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
        for line in lines:
            if line[-1:] == "\r":
                line = line[:-1]
            if not line:
                if data:
                    yield data[0] if len(data) == 1 else "\n".join(data)
                    data = []
            elif line[:5] == "data:":
                data.append(line[6:] if line[5:6] == " " else line[5:])
    pending += decode(b"", final=True)
    if pending[:5] == "data:":
        data.append(pending[6:] if pending[5:6] == " " else pending[5:])
    if data:
        yield "\n".join(data)
