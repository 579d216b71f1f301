"""OwnedMessages alone: late messages land in their own session and branch, held back while streaming."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.engine.owned_messages import MessageOwner, OwnedMessages
from atomic.core.messages import UserMessage
from atomic.core.session.store import SessionStore


class Harness:
    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path / "sessions"
        self.dir.mkdir()
        self.store = SessionStore.create(self.dir, tmp_path)
        self.streaming = False
        self.recorded: list[Any] = []
        self.owned = OwnedMessages(
            active_store=lambda: self.store, is_streaming=lambda: self.streaming, record=self.record
        )

    def record(self, message: Any) -> None:
        self.store.append("message", message=message.to_wire())
        self.recorded.append(message)


def texts(store: SessionStore) -> list[str]:
    return [r.data["message"]["content"] for r in store.path_to() if r.type == "message"]


def test_held_back_while_streaming_then_flushed(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.streaming = True
    h.owned.store(h.owned.owner_here(), UserMessage(content="late"))
    assert h.recorded == [] and len(h.owned.deferred) == 1
    h.owned.flush()
    assert [m.content for m in h.recorded] == ["late"] and h.owned.deferred == []


def test_another_sessions_message_goes_to_its_file_not_the_active_one(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.record(UserMessage(content="first"))
    h.store.flush()
    owner = h.owned.owner_here()
    h.store = SessionStore.create(h.dir, tmp_path)
    h.streaming = True  # the active session streams; the owner is not the active session
    h.owned.store(owner, UserMessage(content="late"))
    assert h.recorded[-1].content == "first" and h.owned.deferred == []
    assert owner.store.path is not None
    assert texts(SessionStore.open(owner.store.path)) == ["first", "late"]
    assert texts(h.store) == []


def test_a_branch_left_meanwhile_gets_the_message_and_the_leaf_stays(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.record(UserMessage(content="one"))
    branch_point = h.store.leaf_id
    h.record(UserMessage(content="two"))
    owner = MessageOwner(h.store, h.store.leaf_id)
    h.store.set_leaf(branch_point)
    h.owned.store(owner, UserMessage(content="late"))
    assert h.store.leaf_id == branch_point
    late = [r for r in h.store.records if r.type == "message" and r.data["message"]["content"] == "late"]
    assert len(late) == 1 and late[0].parent_id == owner.start_leaf
    assert [m.content for m in h.recorded] == ["one", "two"]
