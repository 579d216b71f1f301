"""`engine.sessions`: the session file in use and what changes it, over `SessionFiles`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.engine.session_files import SessionFiles

if TYPE_CHECKING:
    from atomic.core.records import ForkMessage, ForkResult, SessionSummary, SessionTree, StoredTree


class SessionsView:
    """New, switch, import, fork and clone session files; move on the tree; labels and names."""

    def __init__(self, files: SessionFiles) -> None:
        self._f = files

    @property
    def session_dir(self) -> Path | None:
        """Where this folder's sessions are stored; None with --no-session."""
        return self._f.session_dir

    async def new_session(self, parent_session: str | None = None) -> bool:
        """Start a fresh session file. Returns False when an extension cancelled it."""
        return await self._f.new_session(parent_session)

    async def switch_session(self, path: str) -> bool:
        """Continue the session stored at `path`. Returns False when an extension cancelled it."""
        return await self._f.switch_session(path)

    async def import_session(self, path: str) -> bool:
        """Copy a session file into this folder's sessions and continue there (False: cancelled)."""
        return await self._f.import_session(path)

    async def fork(self, entry_id: str) -> ForkResult:
        """A new session holding the branch up to just before the user message `entry_id`.
        Raises ValueError: no such entry, or it is not a user message."""
        return await self._f.fork(entry_id)

    async def clone(self) -> bool:
        """A new session holding the current branch. Returns False when an extension cancelled it."""
        return await self._f.clone()

    def fork_messages(self) -> list[ForkMessage]:
        """The user messages of the current branch, oldest first (where a fork can start)."""
        return self._f.fork_messages()

    def tree(self) -> SessionTree:
        """Every entry of the session file as a tree of branches."""
        return self._f.tree()

    def stored_tree(self) -> StoredTree:
        """The tree as an index over the stored JSON lines (nothing parsed or encoded again)."""
        return self._f.stored_tree()

    def stored_entries(self, since: str | None = None) -> tuple[list[str], str | None]:
        """The stored JSON lines of the entries after `since` (all when None), and the leaf id.
        Raises KeyError: `since` is not an entry id."""
        store = self._f.store
        return store.raw_since(since), store.leaf_id

    async def navigate_to(self, entry_id: str | None) -> str | None:
        """Move the current position to `entry_id` (/tree). On a user message: its text (the position
        goes to its parent, so sending it again makes a new branch); else None. Raises ValueError:
        no such entry."""
        return await self._f.navigate_to(entry_id)

    def set_label(self, entry_id: str, label: str | None) -> None:
        """Label an entry (None or "" removes the label). Raises ValueError for an unknown entry."""
        self._f.set_label(entry_id, label)

    def set_session_name(self, name: str) -> None:
        """Name the session. Raises ValueError for an empty name."""
        self._f.set_session_name(name)

    def list_sessions(self, all_folders: bool = False) -> list[SessionSummary]:
        """Stored sessions, newest first: this folder's, or every folder's."""
        from atomic.core.contract.sessions import list_session_summaries

        return list_session_summaries(None if all_folders else self._f.session_dir)
