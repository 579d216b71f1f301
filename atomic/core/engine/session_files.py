"""The session file in use and the operations that change it: new, switch, import, fork, clone,
tree navigation, labels and names.

`SessionFiles` owns the active `SessionStore`; whenever it replaces the store (or moves its leaf)
it lets its host rebuild what depends on it (the live context, the model recorded on the branch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from atomic.core.events import Event, SessionChanged, SessionInfoChanged
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import UserMessage, user_text
from atomic.core.session.store import SessionStore


class SessionFilesHost(Protocol):
    """What changing the session file needs from the session around it."""

    @property
    def hooks(self) -> HookBus: ...
    @property
    def is_streaming(self) -> bool: ...

    async def abort(self, continue_queue: bool = True) -> None: ...
    def emit(self, event: Event) -> None: ...
    def reload_context(self) -> None: ...
    def restore_model_from_session(self) -> None: ...
    def record_current_model(self) -> None: ...
    def restore_queue(self) -> None: ...


class SessionFiles:
    def __init__(self, host: SessionFilesHost, *, cwd: Path, session_dir: Path | None, store: SessionStore) -> None:
        self._host = host
        self._cwd = cwd
        # None: sessions live in memory only (--no-session).
        self.session_dir = session_dir
        self.store = store

    # -------------------------------------------------------------- replacing the session

    async def _replace_store(self, store: SessionStore, reason: str) -> None:
        host = self._host
        if host.is_streaming:
            await host.abort(continue_queue=False)
        previous = self.store.path
        self.store = store
        host.reload_context()
        host.restore_model_from_session()
        host.restore_queue()
        host.emit(SessionChanged(reason=reason, session_file=str(store.path) if store.path else None))
        if host.hooks.has("session_start"):
            await host.hooks.emit(
                "session_start", {"reason": reason, "previousSessionFile": str(previous) if previous else None}
            )

    async def new_session(self, parent_session: str | None = None) -> bool:
        """Start a fresh session. Returns False when an extension cancelled it."""
        if await self._host.hooks.cancelled("session_before_switch", {"reason": "new", "targetSessionFile": None}):
            return False
        store = SessionStore.create(self.session_dir, self._cwd, parent_session)
        await self._replace_store(store, "new")
        self._host.record_current_model()
        return True

    async def switch_session(self, path: str) -> bool:
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = self._cwd / target
        if await self._host.hooks.cancelled("session_before_switch", {"reason": "resume", "targetSessionFile": str(target)}):
            return False
        store = SessionStore.open(target, self._cwd)
        await self._replace_store(store, "resume")
        return True

    async def import_session(self, input_path: str) -> bool:
        """Copy a session file (every branch) into this folder's sessions and continue there."""
        source_path = Path(input_path).expanduser()
        if not source_path.is_absolute():
            source_path = self._cwd / source_path
        source = SessionStore.open(source_path)
        payload = {"reason": "import", "targetSessionFile": str(source_path)}
        if await self._host.hooks.cancelled("session_before_switch", payload):
            return False
        store = SessionStore.create(self.session_dir, self._cwd, str(source_path))
        for record in source.records:
            store.append_existing(dict(record.data))
        store.set_leaf(source.leaf_id)
        store.flush()
        await self._replace_store(store, "import")
        return True

    async def fork(self, entry_id: str) -> tuple[str, bool]:
        """A new session holding the path up to just before the user message `entry_id`."""
        record = self.store.by_id.get(entry_id)
        if record is None:
            raise ValueError(f"Entry not found: {entry_id}")
        data = record.data
        message = data.get("message") or {}
        if record.type != "message" or message.get("role") != "user":
            raise ValueError(f"Entry {entry_id} is not a user message")
        text = user_text(UserMessage.model_validate(message))
        if await self._host.hooks.cancelled("session_before_fork", {"entryId": entry_id, "position": "before"}):
            return text, True
        await self._branch_into_new_file(record.parent_id, "fork")
        return text, False

    async def clone(self) -> bool:
        if self.store.leaf_id is None:
            raise ValueError("Cannot clone session: no current entry selected")
        if await self._host.hooks.cancelled("session_before_fork", {"entryId": self.store.leaf_id, "position": "at"}):
            return False
        await self._branch_into_new_file(self.store.leaf_id, "fork")
        return True

    async def _branch_into_new_file(self, leaf_id: str | None, reason: str) -> None:
        source = self.store
        parent = str(source.path) if source.path else None
        store = SessionStore.create(self.session_dir, self._cwd, parent)
        path = source.path_to(leaf_id) if leaf_id else []
        labels = source.labels()
        for record in path:
            data = dict(record.data)
            store.append_existing(data)
        for record in path:
            if record.id in labels:
                store.append("label", targetId=record.id, label=labels[record.id][0])
        if path:
            store.set_leaf(path[-1].id)
        store.flush()
        await self._replace_store(store, reason)

    def get_fork_messages(self) -> list[dict[str, str]]:
        out = []
        for record in self.store.path_to():
            if record.type != "message":
                continue
            message = record.data.get("message") or {}
            if message.get("role") == "user":
                out.append({"entryId": record.id, "text": user_text(UserMessage.model_validate(message))})
        return out

    # -------------------------------------------------------------- tree navigation

    async def navigate_to(self, entry_id: str | None) -> str | None:
        """Move the leaf (the /tree command). On a user message the leaf goes to its parent and the text
        is returned for the editor, so sending it again makes a new branch."""
        if self._host.is_streaming:
            await self._host.abort()
        text = None
        if entry_id is not None:
            record = self.store.by_id.get(entry_id)
            if record is None:
                raise ValueError(f"Entry not found: {entry_id}")
            message = record.data.get("message") or {}
            if record.type == "message" and message.get("role") == "user":
                text = user_text(UserMessage.model_validate(message))
                entry_id = record.parent_id
        self.store.set_leaf(entry_id)
        self._host.reload_context()
        self._host.emit(SessionChanged(reason="tree", session_file=str(self.store.path) if self.store.path else None))
        return text

    def set_label(self, entry_id: str, label: str | None) -> None:
        if entry_id not in self.store.by_id:
            raise ValueError(f"Entry not found: {entry_id}")
        # Appended in the chain (like every entry) so the tree has no dead-end branches; the model never
        # sees label entries.
        self.store.append("label", targetId=entry_id, label=label or None)

    def set_session_name(self, name: str) -> None:
        name = name.strip()
        if not name:
            raise ValueError("Session name cannot be empty")
        self.store.append("session_info", name=name)
        self._host.emit(SessionInfoChanged(name=name))
