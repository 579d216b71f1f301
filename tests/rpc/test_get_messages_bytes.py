"""Big answers (`get_messages`, `get_entries`, `get_tree`) are written in chunks, never joined
whole, and still send exactly the bytes the models and entries would give.

`get_messages` splices each stored message's text from the session file, or encodes the dict of a
message recorded by this process; either way the line must equal the compact JSON of the typed
messages' wire form, across chunk boundaries, with no other line interleaved. `get_entries` and
`get_tree` splice the stored lines.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.atomic_io import encode_json_text
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.providers.scripted import ScriptedProvider
from atomic.rpc import wire, wire_json
from atomic.rpc.server import JsonLineWriter
from atomic.rpc.wire_json import JsonPieces, dumps, joined_in_chunks
from tests.rpc.inprocess import InProcessRpc


def compact(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


async def recorded_session(tmp_path: Path) -> Path:
    """A session file written by Atomic: text, thinking, a tool call and its result, a direct bash."""
    provider = ScriptedProvider([
        {"thinking": "hmm ✓", "toolCalls": [{"name": "bash", "arguments": {"command": "echo hé"}}]},
        {"text": "done **bold** ✓"},
        {"text": "second answer"},
    ])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    await session.prompt("go ünïcode")
    await session.wait_idle()
    await session.prompt("and again")
    await session.wait_idle()
    await session.bash.run("echo direct")
    path = session.store.path
    await session.shutdown()
    assert path is not None
    return path


async def test_the_answer_is_byte_identical_to_the_models_wire_form(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await recorded_session(tmp_path)
    # Two messages per chunk, so the answer crosses many chunk boundaries.
    monkeypatch.setattr(wire_json, "CHUNK_ITEMS", 2)
    rpc = await InProcessRpc.start(tmp_path, [{"text": "a reply recorded by this process"}], session=str(path))
    try:
        # Messages recorded by this process have no stored text yet: they go out as their dicts.
        await rpc.send('{"id":"p","type":"prompt","message":"lone \\ud800 surrogate"}')
        await rpc.send('{"id":"s","type":"get_state"}', '{"id":"m","type":"get_messages"}',
                       '{"id":"s2","type":"get_state"}')
        messages = [m.to_wire() for m in rpc.session.context_messages()]
    finally:
        await rpc.close()
    roles = [m["role"] for m in messages]
    assert roles == ["user", "assistant", "toolResult", "assistant", "user", "assistant", "bashExecution",
                     "user", "assistant"]
    lines = rpc.raw_lines()
    answer = next(line for line in lines if line.startswith(b'{"id":"m",'))
    head = '{"id":"m","type":"response","command":"get_messages","success":true,"data":'
    assert answer == encode_json_text(head + compact({"messages": messages}) + "}")
    assert b"\\ud800" in answer  # the lone surrogate is escaped, as every other line does it
    # Every line is whole: the chunked answer did not cut into or through another line.
    assert [json.loads(line)["id"] for line in lines if line.startswith(b'{"id":')][-3:] == ["s", "m", "s2"]


async def test_entries_and_tree_are_byte_identical_across_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = await recorded_session(tmp_path)
    monkeypatch.setattr(wire_json, "CHUNK_ITEMS", 2)
    monkeypatch.setattr(wire, "_TREE_CHUNK", 3)
    rpc = await InProcessRpc.start(tmp_path, [{"text": "on a branch"}], session=str(path))
    try:
        store = rpc.session.store
        first_user = next(r.id for r in store.records if r.type == "message")
        second = store.records[-1].id
        await rpc.send(json.dumps({"id": "l", "type": "set_label", "entryId": second, "label": "mark é"}))
        # Back to the first prompt and a new answer there: the tree has a branch.
        await rpc.send(json.dumps({"id": "n", "type": "navigate_tree", "targetId": first_user}))
        await rpc.send('{"id":"p","type":"prompt","message":"branch"}')
        since = store.records[3].id
        await rpc.send('{"id":"e","type":"get_entries"}', json.dumps({"id": "e2", "type": "get_entries", "since": since}),
                       '{"id":"t","type":"get_tree"}')
        entries = [r.data for r in store.records]
        tree, leaf = store.tree(), store.leaf_id
    finally:
        await rpc.close()
    assert len(tree) == 1 and any(len(node["children"]) > 1 for node in walk(tree))
    assert any("label" in node for node in walk(tree))
    by_id = {json.loads(line)["id"]: line for line in rpc.raw_lines() if line.startswith(b'{"id":')}

    def expected(request_id: str, command: str, data: dict[str, Any]) -> bytes:
        head = f'{{"id":"{request_id}","type":"response","command":"{command}","success":true,"data":'
        return encode_json_text(head + compact(data) + "}")

    assert by_id["e"] == expected("e", "get_entries", {"entries": entries, "leafId": leaf})
    assert by_id["e2"] == expected("e2", "get_entries", {"entries": entries[4:], "leafId": leaf})
    assert by_id["t"] == expected("t", "get_tree", {"tree": tree, "leafId": leaf})


def walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    stack = list(nodes)
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node["children"])
    return found


async def test_an_empty_session_answers_an_empty_list(tmp_path: Path) -> None:
    rpc = await InProcessRpc.start(tmp_path)
    try:
        await rpc.send('{"id":"m","type":"get_messages"}')
    finally:
        await rpc.close()
    assert rpc.raw_lines()[-1] == b'{"id":"m","type":"response","command":"get_messages","success":true,"data":{"messages":[]}}'


@pytest.mark.parametrize("count", [0, 1, 2, 3, 4, 5, 9])
def test_chunks_join_to_the_whole_list_with_dicts_anywhere(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire_json, "CHUNK_ITEMS", 2)
    items: list[Any] = [compact({"n": n}) if n % 3 else {"n": n, "é": [n]} for n in range(count)]
    expected = ",".join(m if isinstance(m, str) else compact(m) for m in items)
    chunks = joined_in_chunks(items)
    assert "".join(chunks) == expected
    assert len(chunks) == (count + 1) // 2
    assert dumps(JsonPieces(["[", *chunks, "]"])) == f"[{expected}]"


class Pipe:
    """A stdout that records each write, and can hang up after some of them."""

    def __init__(self, hang_up_after: int | None = None) -> None:
        self.writes: list[bytes] = []
        self.hang_up_after = hang_up_after

    def write(self, data: bytes) -> int:
        if self.hang_up_after is not None and len(self.writes) >= self.hang_up_after:
            raise BrokenPipeError
        self.writes.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass


async def test_queued_lines_go_first_and_the_big_line_is_written_in_chunks() -> None:
    pipe = Pipe()
    writer = JsonLineWriter(pipe)  # type: ignore[arg-type]
    writer.write({"type": "event", "n": 1})  # queued until the loop's next pass
    writer.write({"type": "event", "n": 2})
    assert pipe.writes == []
    writer.write_pieces('{"id":1,"data":', JsonPieces(["[", "1,2", ",3", "]"]), "}")
    writer.write({"type": "after"})
    writer.flush()
    data = b"".join(pipe.writes)
    assert data == b'{"type":"event","n":1}\n{"type":"event","n":2}\n{"id":1,"data":[1,2,3]}\n{"type":"after"}\n'
    assert len(pipe.writes) == 6  # the queued lines at once, one write per chunk, then the next line


def test_a_client_that_hangs_up_mid_answer_stops_the_writing_quietly() -> None:
    pipe = Pipe(hang_up_after=2)
    writer = JsonLineWriter(pipe)  # type: ignore[arg-type]
    writer.write_pieces("", JsonPieces(["[", "1", ",2", "]"]), "")
    assert pipe.writes == [b"[", b"1"]
    writer.write_pieces("", JsonPieces(["[]"]), "")  # still no exception once the pipe is gone
    assert pipe.writes == [b"[", b"1"]


def test_a_pieces_answer_on_a_byte_buffer_is_one_line() -> None:
    out = io.BytesIO()
    writer = JsonLineWriter(out)
    writer.write_pieces("x", JsonPieces(["[]"]), "y")
    assert out.getvalue() == b"x[]y\n"
