"""Messages that finish after they started (direct bash, an extension's message) and where they belong.

Each belongs to the session, and the branch, it started in: it is stored exactly once there, even
when the active session is replaced meanwhile, and even when that session was reopened (a reopened
session is a new store object: the owner is the session id, never the object). While the agent
streams, a message for the active session waits until the run ends, so it never separates an
assistant turn from its tool results.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.session.store import SessionFileError, SessionStore


@dataclass(frozen=True)
class MessageOwner:
    """Where a message that finishes later belongs: the session it started in and the leaf it started at."""

    store: SessionStore
    start_leaf: str | None

    @property
    def session_id(self) -> str:
        return self.store.session_id


def on_path(store: SessionStore, entry_id: str | None) -> bool:
    """Whether `entry_id` is the leaf or one of its ancestors (None, the empty start, always is)."""
    if entry_id is None or entry_id == store.leaf_id:
        return True
    return any(record.id == entry_id for record in store.path_to())


def append_on_branch(store: SessionStore, start_leaf: str | None, message: Any) -> None:
    """Append to a store that is not the active one: after its leaf when the request's branch leads
    there, else as a child of the entry the request started at (its branch, not somebody else's)."""
    if start_leaf is None or start_leaf not in store.by_id or on_path(store, start_leaf):
        store.append("message", message=message.to_wire())
        return
    store.set_leaf(start_leaf)
    store.append("message", message=message.to_wire())


def fresh_store(owner: MessageOwner) -> SessionStore:
    """The owner's file as it is now: another store object (a reopened session) may have appended to it."""
    path = owner.store.path
    if path is None or not path.exists():
        # In memory, or not written yet: the object we hold is the only copy.
        return owner.store
    try:
        return SessionStore.open(path)
    except SessionFileError:
        return owner.store


class OwnedMessages:
    """Stores late messages in their owner's session and branch; holds back the active session's
    while a run streams."""

    def __init__(
        self,
        *,
        active_store: Callable[[], SessionStore],
        is_streaming: Callable[[], bool],
        record: Callable[[Any], None],
    ) -> None:
        self._active_store = active_store
        self._is_streaming = is_streaming
        self._record = record
        self.deferred: list[tuple[MessageOwner, Any]] = []

    def owner_here(self) -> MessageOwner:
        """The active session at its current leaf."""
        store = self._active_store()
        return MessageOwner(store, store.leaf_id)

    def store(self, owner: MessageOwner, message: Any) -> None:
        """Store `message` exactly once in its own session and branch (later, when a run streams)."""
        if self._active_store().session_id == owner.session_id and self._is_streaming():
            self.deferred.append((owner, message))
        else:
            self.record(owner, message)

    def record(self, owner: MessageOwner, message: Any) -> None:
        """Store it now (the agent is idle, or the owner is not the active session)."""
        store = self._active_store()
        if store.session_id != owner.session_id:
            append_on_branch(fresh_store(owner), owner.start_leaf, message)
        elif on_path(store, owner.start_leaf) or owner.start_leaf not in store.by_id:
            self._record(message)
        else:
            # The user moved to another branch meanwhile: the result goes to its own branch, and the
            # current position (and context) stays where the user put it.
            leaf = store.leaf_id
            append_on_branch(store, owner.start_leaf, message)
            store.set_leaf(leaf)

    def flush(self) -> None:
        """Store what waited for the run to end (the caller knows no run is active)."""
        while self.deferred:
            owner, message = self.deferred.pop(0)
            self.record(owner, message)
