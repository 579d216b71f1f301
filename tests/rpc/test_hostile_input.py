"""Hostile and broken input lines: lone surrogates, odd whitespace, odd ids, failing handlers.

Every line gets exactly one answer (blank lines none), ids come back exactly as sent, and the
session file stays valid UTF-8 JSONL that keeps the text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.session import file_writes
from atomic.core.session.store import SessionStore
from atomic.rpc import handlers
from tests.rpc.inprocess import InProcessRpc

Start = Callable[..., Any]


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Start]:
    cwd = tmp_path / "project"
    cwd.mkdir()
    opened: list[InProcessRpc] = []

    async def go(responses: list[dict[str, Any]] | None = None, **options: Any) -> InProcessRpc:
        rpc = await InProcessRpc.start(cwd, responses, **options)
        opened.append(rpc)
        return rpc

    yield go
    for rpc in opened:
        await rpc.close()


def line(command: dict[str, Any]) -> str:
    # json.dumps escapes a lone surrogate as \\ud800, exactly what a JSON client sends.
    return json.dumps(command)


def session_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of the file: strict UTF-8 and JSON, or the assertion fails."""
    text = path.read_bytes().decode("utf-8")
    assert text.endswith("\n")
    return [json.loads(raw) for raw in text.split("\n")[:-1]]


# ---------------------------------------------------------------------------------- lone surrogates


async def test_lone_surrogate_prompt_is_kept_and_the_session_stays_usable(start: Start) -> None:
    rpc = await start()
    text = "half \ud83d of an emoji, and \udfff"
    await rpc.send(line({"id": "p1", "type": "prompt", "message": text}))
    path = rpc.session.store.path
    assert path is not None and path.stat().st_size > 0
    entries = session_lines(path)
    users = [e["message"] for e in entries[1:] if e["type"] == "message" and e["message"]["role"] == "user"]
    assert users[0]["content"] == text
    # Every stdout line is valid UTF-8 JSON, and the events carrying the text were sent.
    objects = rpc.objects()
    ends = [o for o in objects if o["type"] == "message_end" and o["message"]["role"] == "user"]
    assert ends and ends[0]["message"]["content"] == text
    assert rpc.responses()[0] == {"id": "p1", "type": "response", "command": "prompt", "success": True}
    # The model got the text with U+FFFD in place of the unencodable characters.
    assert rpc.provider is not None
    assert rpc.provider.requests[0].messages[-1].content == "half \ufffd of an emoji, and \ufffd"
    # Still usable: the next prompt is stored, and a reopened file gives back the exact text.
    await rpc.send(line({"id": "p2", "type": "prompt", "message": "next"}))
    assert [e["message"]["content"] for e in session_lines(path)[1:] if e.get("message", {}).get("role") == "user"] == [
        text,
        "next",
    ]
    reopened = SessionStore.open(path)
    assert not reopened.warnings
    await rpc.send(line({"id": "m", "type": "get_messages"}))
    messages = rpc.responses()[-1]["data"]["messages"]
    assert messages[0]["content"] == text


async def test_lone_surrogate_in_session_name_steer_and_follow_up(start: Start) -> None:
    rpc = await start([{"text": "slow", "delayMs": 50}])
    await rpc.send(line({"id": "n", "type": "set_session_name", "name": "name \udc80"}))
    await rpc.send(line({"id": "s", "type": "get_state"}))
    assert rpc.responses()[-1]["data"]["sessionName"] == "name \udc80"
    await rpc.send(
        line({"id": "p", "type": "prompt", "message": "go"}),
        line({"id": "st", "type": "steer", "message": "steer \ud800"}),
        line({"id": "fu", "type": "follow_up", "message": "follow \udbff"}),
    )
    answers = {r["id"]: r for r in rpc.responses()}
    assert all(answers[i]["success"] for i in ("n", "p", "st", "fu"))
    path = rpc.session.store.path
    assert path is not None
    contents = [e["message"].get("content") for e in session_lines(path)[1:] if e["type"] == "message"]
    assert "steer \ud800" in contents and "follow \udbff" in contents
    assert any(e.get("name") == "name \udc80" for e in session_lines(path)[1:])


async def test_bash_command_with_lone_surrogate_runs_and_is_stored_verbatim(start: Start) -> None:
    rpc = await start()
    command = "printf '%s' 'a\ud800b'"
    await rpc.send(line({"id": "b", "type": "bash", "command": command}))
    response = rpc.responses()[-1]
    assert response["success"] is True, response
    assert response["data"]["output"] == "a\ufffdb" and response["data"]["exitCode"] == 0
    await rpc.send(line({"id": "p", "type": "prompt", "message": "after"}))
    path = rpc.session.store.path
    assert path is not None
    stored = [e["message"] for e in session_lines(path)[1:] if e.get("message", {}).get("role") == "bashExecution"]
    assert stored[0]["command"] == command


def test_a_failed_first_write_leaves_no_file_and_a_retry_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SessionStore.create(tmp_path / "sessions", tmp_path)
    real_write = file_writes._write_all
    calls = {"n": 0}

    def failing(fd: int, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(28, "No space left on device")
        real_write(fd, data)

    monkeypatch.setattr(file_writes, "_write_all", failing)
    with pytest.raises(OSError):
        store.append("message", message={"role": "user", "content": "one \ud800", "timestamp": 1})
    assert store.path is not None and not store.path.exists()
    assert list(store.path.parent.iterdir()) == []  # no temp file left behind either
    store.append("message", message={"role": "user", "content": "two", "timestamp": 2})
    entries = session_lines(store.path)
    assert [e["message"]["content"] for e in entries[1:]] == ["one \ud800", "two"]


# ---------------------------------------------------------------------------------- framing


@pytest.mark.parametrize("blank", ["", " ", "\t", "\r", " \t \r"])
async def test_blank_lines_get_no_answer(start: Start, blank: str) -> None:
    rpc = await start()
    await rpc.send(blank)
    assert rpc.raw_lines() == []


@pytest.mark.parametrize(
    "char", ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u2028", "\u2029"]
)
async def test_lines_of_non_json_whitespace_get_a_parse_error(start: Start, char: str) -> None:
    rpc = await start()
    await rpc.send(char, f" {char}\t", char * 3)
    responses = rpc.responses()
    assert len(rpc.raw_lines()) == 3 and len(responses) == 3
    for response in responses:
        assert response["command"] == "parse" and response["success"] is False
        assert response["error"].startswith("Failed to parse command: ")


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
async def test_non_json_constants_are_parse_errors(start: Start, token: str) -> None:
    rpc = await start()
    await rpc.send(f'{{"id":"c","type":"get_state","x":{token}}}')
    assert rpc.responses() == [
        {"type": "response", "command": "parse", "success": False,
         "error": f"Failed to parse command: {token} is not valid JSON"}
    ]


@pytest.mark.parametrize(
    "id_text", ['"abc"', '"\\ud800"', '""', "7", "-0.0", "2.50", "1E+2", "1e999", "123456789012345678901234567890"]
)
async def test_ids_are_echoed_byte_for_byte(start: Start, id_text: str) -> None:
    rpc = await start()
    await rpc.send(f'{{"id":{id_text},"type":"get_last_assistant_text"}}')
    [raw] = rpc.raw_lines()
    assert raw.startswith(b'{"id":' + id_text.encode() + b',"type":"response","command":"get_last_assistant_text"')
    assert json.loads(raw)["success"] is True


@pytest.mark.parametrize("id_text", ["true", "false", "null", "{}", '{"a":[1,true]}', "[]", "[1]"])
async def test_ids_that_are_not_strings_or_numbers_are_refused_unchanged(start: Start, id_text: str) -> None:
    rpc = await start()
    await rpc.send(f'{{"id":{id_text},"type":"set_session_name","name":"should not be set"}}')
    [raw] = rpc.raw_lines()
    assert raw.startswith(b'{"id":' + id_text.encode() + b',"type":"response","command":"set_session_name"')
    response = json.loads(raw)
    assert response["success"] is False and "id" in response["error"]
    assert response["id"] == json.loads(id_text) and type(response["id"]) is type(json.loads(id_text))
    assert rpc.session.store.name() is None


async def test_a_bad_id_on_an_unknown_type_is_still_answered(start: Start) -> None:
    rpc = await start()
    await rpc.send('{"id":true}', '{"id":false,"type":7}')
    assert [json.loads(raw)["id"] for raw in rpc.raw_lines()] == [True, False]


# ---------------------------------------------------------------------------------- failures


async def test_a_missing_handler_is_answered(start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    rpc = await start()
    monkeypatch.delitem(handlers.HANDLERS, "get_state")
    await rpc.send(line({"id": "x", "type": "get_state"}))
    [response] = rpc.responses()
    assert response["id"] == "x" and response["success"] is False and response["error"]


async def test_a_raising_handler_is_answered(start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    rpc = await start()

    async def boom(*_args: Any) -> Any:
        raise RuntimeError("kaput")

    monkeypatch.setitem(handlers.HANDLERS, "get_state", boom)
    await rpc.send(line({"id": "x", "type": "get_state"}))
    assert rpc.responses() == [
        {"id": "x", "type": "response", "command": "get_state", "success": False, "error": "kaput"}
    ]


@pytest.mark.parametrize("result", [object(), {"n": float("nan"), "bad": {1, 2}}, {"k": b"bytes"}])
async def test_a_result_that_cannot_be_serialized_is_answered(
    start: Start, monkeypatch: pytest.MonkeyPatch, result: Any
) -> None:
    rpc = await start()

    async def odd(*_args: Any) -> Any:
        return result

    monkeypatch.setitem(handlers.HANDLERS, "get_state", odd)
    await rpc.send(line({"id": "x", "type": "get_state"}), line({"id": "y", "type": "get_last_assistant_text"}))
    first, second = rpc.responses()
    assert first["id"] == "x" and first["success"] is False
    assert first["error"].startswith("Failed to serialize the get_state result")
    assert second["id"] == "y" and second["success"] is True


async def test_a_deeply_nested_result_is_serialized(start: Start, monkeypatch: pytest.MonkeyPatch) -> None:
    rpc = await start()
    deep: Any = "bottom"
    for _ in range(50_000):
        deep = {"d": [deep]}

    async def nested(*_args: Any) -> Any:
        return deep

    monkeypatch.setitem(handlers.HANDLERS, "get_state", nested)
    await rpc.send(line({"id": "x", "type": "get_state"}))
    [raw] = rpc.raw_lines()
    assert raw.startswith(b'{"id":"x","type":"response","command":"get_state","success":true,"data":{"d":[{"d":')
    assert raw.count(b'{"d":[') == 50_000 and b'"bottom"' in raw


# ---------------------------------------------------------------------------------- get_tree at depth


def write_chain(path: Path, depth: int, cwd: Path) -> None:
    """A session whose entries form one branch `depth` long (custom entries: nothing to validate)."""
    header = {"type": "session", "version": 3, "id": "deep-session", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": str(cwd)}
    out = [json.dumps(header)]
    parent = None
    for index in range(depth):
        entry_id = f"e{index:07d}"
        out.append(json.dumps({"type": "custom", "id": entry_id, "parentId": parent,
                               "timestamp": "2026-01-01T00:00:00.000Z", "customType": "n", "data": index},
                              separators=(",", ":")))
        parent = entry_id
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


async def test_get_tree_answers_for_a_branch_of_100000_entries(start: Start, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    write_chain(path, 100_000, tmp_path)
    rpc = await start(session=str(path))
    await rpc.send(line({"id": "t", "type": "get_tree"}))
    [raw] = [r for r in rpc.raw_lines() if r.startswith(b'{"id":"t"')]
    # The C decoder recurses too; count the depth from the text instead of json.loads.
    assert raw.startswith(b'{"id":"t","type":"response","command":"get_tree","success":true,"data":{"tree":[')
    assert raw.count(b'"entry":') == 100_000
    assert raw.endswith(b'"leafId":"e0099999"}}')
    assert raw.index(b'"e0000000"') < raw.index(b'"e0050000"') < raw.index(b'"e0099999"')


async def test_get_tree_matches_the_engine_tree_with_branches_and_labels(start: Start) -> None:
    rpc = await start()
    await rpc.send(line({"type": "prompt", "message": "one"}), line({"type": "prompt", "message": "two"}))
    first_user = next(r for r in rpc.session.store.records if r.type == "message")
    await rpc.send(line({"id": "nav", "type": "navigate_tree", "targetId": first_user.id}))
    await rpc.send(line({"type": "prompt", "message": "branch"}))
    await rpc.send(line({"type": "set_label", "entryId": first_user.id, "label": "start \ud800"}))
    await rpc.send(line({"id": "t", "type": "get_tree"}))
    tree = rpc.responses()[-1]["data"]
    assert tree == json.loads(json.dumps({"tree": rpc.session.store.tree(), "leafId": rpc.session.store.leaf_id}))
    assert len(tree["tree"]) == 1


# ---------------------------------------------------------------------------------- export_html


async def test_export_html_refuses_to_overwrite_session_files(start: Start, tmp_path: Path) -> None:
    rpc = await start()
    await rpc.send(line({"type": "prompt", "message": "hello"}))
    active = rpc.session.store.path
    assert active is not None
    other = tmp_path / "other.jsonl"
    other.write_text('{"type":"session","version":3,"id":"x","timestamp":"t","cwd":"/"}\n', encoding="utf-8")
    link = tmp_path / "link.html"
    link.symlink_to(active)
    before = {p: p.read_bytes() for p in (active, other)}
    for target in (active, other, link):
        await rpc.send(line({"id": "e", "type": "export_html", "outputPath": str(target)}))
        response = rpc.responses()[-1]
        assert response["success"] is False and "session file" in response["error"], response
    assert {p: p.read_bytes() for p in (active, other)} == before
    session_lines(active)


async def test_export_html_writes_through_a_temp_file_and_replaces(start: Start, tmp_path: Path) -> None:
    rpc = await start()
    await rpc.send(line({"type": "prompt", "message": "hello \ud800"}))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = out_dir / "page.html"
    target.write_text("old page", encoding="utf-8")
    await rpc.send(line({"id": "e", "type": "export_html", "outputPath": str(target)}))
    response = rpc.responses()[-1]
    assert response["success"] is True and response["data"] == {"path": str(target)}
    page = target.read_bytes().decode("utf-8")
    assert "hello \ufffd" in page
    assert [p.name for p in out_dir.iterdir()] == ["page.html"]
