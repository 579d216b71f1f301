"""SessionFiles alone, on a fake host: new, fork, navigation, labels and names, extension vetoes."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.engine.session_files import SessionFiles
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import AssistantMessage, TextContent, UserMessage
from atomic.core.session.store import SessionStore


class FakeHost:
    def __init__(self) -> None:
        self.hooks = HookBus()
        self.is_streaming = False
        self.calls: list[str] = []
        self.events: list[Event] = []

    async def abort(self, continue_queue: bool = True) -> None:
        self.calls.append(f"abort:{continue_queue}")
        self.is_streaming = False

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def reload_context(self) -> None:
        self.calls.append("reload")

    def restore_model_from_session(self) -> None:
        self.calls.append("restore")


def make(tmp_path: Path) -> tuple[SessionFiles, FakeHost, list[str]]:
    session_dir = tmp_path / "sessions"
    session_dir.mkdir()
    host = FakeHost()
    store = SessionStore.create(session_dir, tmp_path)
    files = SessionFiles(
        host, cwd=tmp_path, session_dir=session_dir, store=store, record_model=lambda: host.calls.append("record"),
        restore_queue=lambda: host.calls.append("queue"),
    )
    ids = []
    for i in range(2):
        ids.append(files.store.append("message", message=UserMessage(content=f"q{i}").to_wire())["id"])
        ids.append(
            files.store.append("message", message=AssistantMessage(content=[TextContent(text=f"a{i}")]).to_wire())[
                "id"
            ]
        )
    files.store.flush()
    return files, host, ids


async def test_new_session_replaces_the_store_and_lets_the_host_rebuild(tmp_path: Path) -> None:
    files, host, _ = make(tmp_path)
    old = files.store
    host.is_streaming = True
    assert await files.new_session() is True
    assert files.store is not old and files.store.records == []
    assert host.calls == ["abort:False", "reload", "restore", "queue", "record"]
    assert [e.to_wire()["type"] for e in host.events] == ["session_changed"]


async def test_an_extension_can_veto_a_switch(tmp_path: Path) -> None:
    files, host, _ = make(tmp_path)
    old = files.store
    host.hooks.on("session_before_switch", lambda payload: {"cancel": True}, "ext.py")
    assert await files.new_session() is False
    assert files.store is old and host.calls == []


async def test_fork_copies_the_path_before_a_user_message(tmp_path: Path) -> None:
    files, _host, ids = make(tmp_path)
    with pytest.raises(ValueError, match="not a user message"):
        await files.fork(ids[1])
    files.set_label(ids[1], "kept")
    source = files.store
    result = await files.fork(ids[2])
    assert (result.text, result.cancelled) == ("q1", False)
    assert files.store is not source and files.store.header["parentSession"] == str(source.path)
    copied = [r.id for r in files.store.path_to() if r.type == "message"]
    assert copied == ids[:2]
    assert files.store.labels()[ids[1]][0] == "kept"


async def test_navigating_to_a_user_message_returns_its_text(tmp_path: Path) -> None:
    files, host, ids = make(tmp_path)
    assert await files.navigate_to(ids[2]) == "q1"
    assert files.store.leaf_id == ids[1]
    assert await files.navigate_to(ids[1]) is None
    assert host.calls == ["reload", "reload"]
    with pytest.raises(ValueError, match="Entry not found"):
        await files.navigate_to("nope")


def test_labels_and_names_check_their_input(tmp_path: Path) -> None:
    files, host, ids = make(tmp_path)
    with pytest.raises(ValueError, match="Entry not found"):
        files.set_label("nope", "x")
    with pytest.raises(ValueError, match="cannot be empty"):
        files.set_session_name("   ")
    files.set_session_name(" Refactor ")
    assert files.store.name() == "Refactor"
    assert host.events[-1].to_wire() == {"type": "session_info_changed", "name": "Refactor"}
    assert len(files.store.entries_since(None)) == 5
