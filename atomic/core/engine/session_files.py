"""The session file in use and the operations that change it: new, switch, import, fork, clone,
tree navigation, labels and names.

`SessionFiles` owns the active `SessionStore`; whenever it replaces the store (or moves its leaf)
it lets its host rebuild what depends on it (the live context, the model recorded on the branch).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from atomic.core.events import Event, SessionChanged, SessionInfoChanged
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import UserMessage, user_text
from atomic.core.session.store import SessionStore

if TYPE_CHECKING:
    from atomic.core.records import ForkMessage, ForkResult, SessionTree, StoredTree


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


class SessionFiles:
    def __init__(
        self,
        host: SessionFilesHost,
        *,
        cwd: Path,
        session_dir: Path | None,
        store: SessionStore,
        record_model: Callable[[], None],
        restore_queue: Callable[[], None],
    ) -> None:
        self._host = host
        self._cwd = cwd
        # Writes the current model and level into a new file (model selection owns them).
        self._record_model = record_model
        # Puts back what the new file's queue journal holds (session/queue_file.py).
        self._restore_queue = restore_queue
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
        self._restore_queue()
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
        self._record_model()
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

    async def fork(self, entry_id: str) -> ForkResult:
        """A new session holding the path up to just before the user message `entry_id`.

        Raises:
            ValueError: no such entry, or it is not a user message.
        """
        from atomic.core.records import ForkResult

        record = self.store.by_id.get(entry_id)
        if record is None:
            raise ValueError(f"Entry not found: {entry_id}")
        data = record.data
        message = data.get("message") or {}
        if record.type != "message" or message.get("role") != "user":
            raise ValueError(f"Entry {entry_id} is not a user message")
        text = user_text(UserMessage.model_validate(message))
        if await self._host.hooks.cancelled("session_before_fork", {"entryId": entry_id, "position": "before"}):
            return ForkResult(text=text, cancelled=True)
        await self._branch_into_new_file(record.parent_id, "fork")
        return ForkResult(text=text, cancelled=False)

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

    def fork_messages(self) -> list[ForkMessage]:
        """The user messages of the current branch, oldest first (where a fork can start)."""
        from atomic.core.records import ForkMessage

        out = []
        for record in self.store.path_to():
            if record.type != "message":
                continue
            message = record.data.get("message") or {}
            if message.get("role") == "user":
                out.append(ForkMessage(entry_id=record.id, text=user_text(UserMessage.model_validate(message))))
        return out

    def tree(self) -> SessionTree:
        """Every entry of the session file as a tree of branches."""
        from atomic.core.records import SessionTree, TreeNode

        store = self.store
        kids = store.children()
        labels = store.labels()
        by_id = store.by_id
        built: dict[str, TreeNode] = {}
        # Children before parents, without recursion (a 10,000-entry chain is one deep branch).
        order: list[str] = []
        stack = list(kids.get(None, []))
        while stack:
            entry_id = stack.pop()
            order.append(entry_id)
            stack.extend(kids.get(entry_id, []))
        for entry_id in reversed(order):
            label = labels.get(entry_id)
            built[entry_id] = TreeNode(
                entry=by_id[entry_id].data,
                children=tuple(built[c] for c in kids.get(entry_id, [])),
                label=label[0] if label else None,
                label_timestamp=label[1] if label else None,
            )
        return SessionTree(roots=tuple(built[r] for r in kids.get(None, [])), leaf_id=store.leaf_id)

    def stored_tree(self) -> StoredTree:
        """The tree as an index over the stored JSON lines (nothing parsed or encoded again)."""
        from atomic.core.records import StoredTree

        store = self.store
        return StoredTree(
            children=store.children(),
            lines={entry_id: record.raw for entry_id, record in store.by_id.items()},
            labels=store.labels(),
            leaf_id=store.leaf_id,
        )

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
