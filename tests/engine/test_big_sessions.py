"""Big sessions: the file is parsed once, messages are validated only when the engine needs them,
and the RPC answers from the stored dicts and lines (no per-entry model round trips)."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.contract import Engine
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import AssistantMessage, UserMessage
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.session import context as context_module
from atomic.core.session import store as store_module
from atomic.core.session.store import SessionStore
from atomic.rpc import handlers
from atomic.rpc.wire_json import dumps


def write_session(path: Path, cwd: Path, turns: int, extra: list[dict[str, Any]] | None = None) -> list[str]:
    header = {"type": "session", "version": 3, "id": "big", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)}
    lines = [json.dumps(header)]
    parent = None
    ids = []

    def add(entry: dict[str, Any]) -> None:
        nonlocal parent
        entry_id = f"e{len(lines):06d}"
        lines.append(json.dumps({"type": entry.pop("type"), "id": entry_id, "parentId": parent,
                                 "timestamp": "2026-01-01T00:00:00.000Z", **entry}, separators=(",", ":")))
        ids.append(entry_id)
        parent = entry_id

    add({"type": "model_change", "provider": "scripted", "modelId": "scripted-model"})
    for turn in range(turns):
        add({"type": "message", "message": {"role": "user", "content": f"question {turn}", "timestamp": turn}})
        add({"type": "message", "message": {
            "role": "assistant", "content": [{"type": "text", "text": f"answer {turn}"}], "api": "scripted",
            "provider": "scripted", "model": "scripted-model",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                      "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}},
            "stopReason": "stop", "timestamp": turn}})
    for entry in extra or []:
        add(dict(entry))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ids


def test_the_file_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.jsonl"
    write_session(path, tmp_path, 200)
    calls = {"loads": 0, "entries": 0}
    real_loads = json.loads
    real_entry = store_module.parse_entry_line

    def counting_loads(text: Any, *args: Any, **kwargs: Any) -> Any:
        calls["loads"] += 1
        return real_loads(text, *args, **kwargs)

    def counting_entry(line: str) -> Any:
        calls["entries"] += 1
        return real_entry(line)

    monkeypatch.setattr(store_module.json, "loads", counting_loads)
    monkeypatch.setattr(store_module, "parse_entry_line", counting_entry)
    store = SessionStore.open(path)
    context_module.build_context(store)
    store.entries_since(None)
    store.tree()
    assert calls["entries"] == 401
    # The header and the one non-message entry; message lines are scanned, not loaded again.
    assert calls["loads"] == 2
    assert all(r.data["id"] == r.id for r in store.records)


def test_message_lines_keep_the_span_of_their_message(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    extra_key = {"type": "message", "message": {"role": "user", "content": "extra", "timestamp": 1}, "note": 1}
    write_session(path, tmp_path, 1, extra=[extra_key])
    # Hand-edited: a duplicate member, spaces; both must still give the same dicts as json.loads.
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"message","id":"dup","parentId":"e000004","timestamp":"t","message":{"role":"user",'
                     '"content":"first","timestamp":1},"message":{"role":"user","content":"second","timestamp":2}}\n')
        handle.write('{"type": "message", "id": "sp", "parentId": "dup", "timestamp": "t", '
                     '"message": {"role": "user", "content": "spaced", "timestamp": 3}}\n')
    file_lines = path.read_text(encoding="utf-8").splitlines()
    store = SessionStore.open(path)
    assert not store.warnings
    for record, line in zip(store.records, file_lines[1:], strict=True):
        assert record.data == json.loads(line)
        if record.message_json is not None:
            assert json.loads(record.message_json) == json.loads(line)["message"]
    spans = [r.message_json is not None for r in store.records]
    assert spans == [False, True, True, False, False, False]


def test_open_pauses_the_garbage_collector_only_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    write_session(path, tmp_path, 3)
    seen: list[bool] = []
    real_add = SessionStore._add

    def watching(self: SessionStore, record: store_module.EntryRecord) -> None:
        seen.append(gc.isenabled())
        real_add(self, record)

    monkeypatch.setattr(SessionStore, "_add", watching)
    assert gc.isenabled()
    gc.unfreeze()
    store = SessionStore.open(path)
    assert seen and not any(seen)
    assert gc.isenabled()
    # The loaded entries are kept out of later collections (frozen), which never walk them again.
    assert gc.get_freeze_count() >= len(store.records) * 2
    gc.unfreeze()
    with pytest.raises(store_module.SessionFileError):
        SessionStore.open(tmp_path / "missing.jsonl")
    assert gc.isenabled()


async def test_messages_are_validated_only_when_the_engine_needs_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    write_session(path, tmp_path, 100)
    calls = {"n": 0}
    real_parse = context_module.parse_message

    def counting(data: dict[str, Any]) -> Any:
        calls["n"] += 1
        return real_parse(data)

    monkeypatch.setattr(context_module, "parse_message", counting)
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), session=str(path)))
    try:
        engine = Engine(session, SessionOptions(cwd=tmp_path))
        assert engine.state().message_count == 200
        assert session.model is not None and session.model.id == "scripted-model"
        data = json.loads(dumps(await handlers.get_messages(engine, None, None)))  # type: ignore[arg-type]
        assert [m["content"] for m in data["messages"][:2]] == ["question 0", [{"type": "text", "text": "answer 0"}]]
        assert calls["n"] == 0
        # Sent as stored: the exact text of each message in the file.
        stored = [json.dumps(json.loads(line)["message"], separators=(",", ":"))
                  for line in path.read_text(encoding="utf-8").splitlines()[2:]]
        sent = await handlers.get_messages(Engine(session, SessionOptions(cwd=tmp_path)), None, None)  # type: ignore[arg-type]
        assert dumps(sent) == '{"messages":[' + ",".join(stored) + "]}"
        # The model needs them all: now each is validated, once.
        messages = session.context_messages()
        assert isinstance(messages[0], UserMessage) and isinstance(messages[1], AssistantMessage)
        session.context_messages()
        assert calls["n"] == 200
    finally:
        await session.shutdown()


async def test_get_messages_sends_what_the_models_would(tmp_path: Path) -> None:
    """The stored dicts are exactly the wire form of the messages a session records."""
    provider = ScriptedProvider([
        {"thinking": "hmm", "toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
        {"text": "done **bold**"},
    ])
    first = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    await first.prompt("run it")
    await first.wait_idle()
    await first.bash.run("echo direct")
    path = first.store.path
    await first.shutdown()
    assert path is not None
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), session=str(path)))
    try:
        data = json.loads(dumps(await handlers.get_messages(Engine(session, SessionOptions(cwd=tmp_path)), None, None)))  # type: ignore[arg-type]
        assert data["messages"] == [m.to_wire() for m in session.context_messages()]
        assert [m["role"] for m in data["messages"]] == ["user", "assistant", "toolResult", "assistant", "bashExecution"]
    finally:
        await session.shutdown()


async def test_a_stored_message_that_does_not_validate_never_breaks_the_session(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    bad = {"type": "message", "message": {"role": "user", "content": 42, "timestamp": "x"}}
    unknown = {"type": "message", "message": {"role": "narrator", "content": "?"}}
    write_session(path, tmp_path, 2, extra=[bad, unknown])
    provider = ScriptedProvider([])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider, session=str(path)))
    try:
        assert len(session.context_items) == 5  # the unknown role is not a message
        broken = session.context_messages()[-1]
        assert isinstance(broken, AssistantMessage) and broken.stop_reason == "error"
        assert "Unreadable message entry" in (broken.error_message or "")
        await session.prompt("still works")
        await session.wait_idle()
        sent = provider.requests[-1].messages
        assert not any(isinstance(m, AssistantMessage) and m.stop_reason == "error" for m in sent)
        assert last_assistant_text(session.context_messages()) == "You said: still works"
    finally:
        await session.shutdown()
