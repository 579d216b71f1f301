"""The SSE reader every HTTP provider streams with: framing details real servers use, and its JSON."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from atomic.core.providers.sse import iter_sse_batches, parse_json


async def read(chunks: list[bytes]) -> list[str]:
    async def source() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return [data async for batch in iter_sse_batches(source()) for data in batch]


async def test_event_names_comments_and_ids_are_skipped() -> None:
    body = b'event: ping\ndata: {"type": "ping"}\n\n: keep-alive\n\nid: 7\nretry: 10\ndata:{"a":1}\n\n'
    assert await read([body]) == ['{"type": "ping"}', '{"a":1}']


@pytest.mark.parametrize("size", [1, 2, 3, 5, 64])
async def test_chunks_split_anywhere_even_inside_a_character(size: int) -> None:
    body = 'event: x\r\ndata: {"text": "Olá 👋"}\r\n\r\ndata: line one\ndata: line two\n\n'.encode()
    chunks = [body[i : i + size] for i in range(0, len(body), size)]
    assert await read(chunks) == ['{"text": "Olá 👋"}', "line one\nline two"]


async def test_data_without_its_closing_blank_line_is_still_read() -> None:
    assert await read([b'data: {"type": "message_stop"}']) == ['{"type": "message_stop"}']
    assert await read([b'data: {"a": 1}\n']) == ['{"a": 1}']


async def test_invalid_utf8_becomes_a_replacement_character() -> None:
    assert await read([b"data: \xff\xfe ok\n\n"]) == ["\ufffd\ufffd ok"]


async def test_a_chunk_holding_several_events_is_one_batch() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield b"data: 1\n\ndata: 2\n\ndata: 3"
        yield b"\n\n"

    assert [batch async for batch in iter_sse_batches(source())] == [["1", "2"], ["3"]]


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x"]}', ' {"a": 1}', '{"a": 1}\n', "[1]", '"s"', "1e999"])
def test_parse_json_reads_what_json_loads_reads(text: str) -> None:
    assert parse_json(text) == json.loads(text)


@pytest.mark.parametrize("text", ['{"a": 1} x', "{", "", "  ", "nan!", '{"a": 1}{"b": 2}'])
def test_parse_json_refuses_what_json_loads_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        parse_json(text)
