"""Direct bash requests (`bash` RPC command, `!cmd` in the TUI) and who owns their results.

Each request belongs to the session, and the branch, it started in: its BashExecutionMessage is
stored exactly once there, even when the active session is replaced while it runs, and even when
that session was reopened meanwhile (a reopened session is a new store object: the owner is the
session id, never the object). Several may run at once; each can be cancelled by its request id,
or all together.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atomic.core.messages import BashExecutionMessage
from atomic.core.session.store import SessionFileError, SessionStore

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession

ChunkCallback = Callable[[str, str], None]


@dataclass(frozen=True)
class MessageOwner:
    """Where a message that finishes later belongs: the session it started in and the leaf it started at."""

    store: SessionStore
    start_leaf: str | None

    @property
    def session_id(self) -> str:
        return self.store.session_id


def _on_path(store: SessionStore, entry_id: str | None) -> bool:
    """Whether `entry_id` is the leaf or one of its ancestors (None, the empty start, always is)."""
    if entry_id is None or entry_id == store.leaf_id:
        return True
    return any(record.id == entry_id for record in store.path_to())


def append_on_branch(store: SessionStore, start_leaf: str | None, message: Any) -> None:
    """Append to a store that is not the active one: after its leaf when the request's branch leads
    there, else as a child of the entry the request started at (its branch, not somebody else's)."""
    if start_leaf is None or start_leaf not in store.by_id or _on_path(store, start_leaf):
        store.append("message", message=message.to_wire())
        return
    store.set_leaf(start_leaf)
    store.append("message", message=message.to_wire())


def _fresh_store(owner: MessageOwner) -> SessionStore:
    """The owner's file as it is now: another store object (a reopened session) may have appended to it."""
    path = owner.store.path
    if path is None or not path.exists():
        # In memory, or not written yet: the object we hold is the only copy.
        return owner.store
    try:
        return SessionStore.open(path)
    except SessionFileError:
        return owner.store


class BashControls:
    def _init_bash(self: AgentSession) -> None:
        self.bash_tasks: dict[str, asyncio.Task[Any]] = {}
        self._bash_counter = itertools.count(1)

    @property
    def is_bash_running(self: AgentSession) -> bool:
        return bool(self.bash_tasks)

    async def run_bash(
        self: AgentSession,
        command: str,
        *,
        request_id: str | None = None,
        on_chunk: ChunkCallback | None = None,
        exclude_from_context: bool = False,
    ) -> BashExecutionMessage:
        from atomic.core.bash_exec import execute_bash

        request_id = request_id or f"bash-{next(self._bash_counter)}"
        while request_id in self.bash_tasks:
            request_id = f"{request_id}-{next(self._bash_counter)}"
        owner = MessageOwner(self.store, self.store.leaf_id)
        task = asyncio.ensure_future(
            execute_bash(
                command,
                cwd=self.cwd,
                session_id=owner.session_id,
                request_id=request_id,
                on_chunk=on_chunk or (lambda _c, _t: None),
                shell_path=self.settings.shell_path,
                command_prefix=self.settings.shell_command_prefix,
            )
        )
        self.bash_tasks[request_id] = task
        try:
            result = await asyncio.shield(task)
        finally:
            self.bash_tasks.pop(request_id, None)
        message = BashExecutionMessage(
            command=command,
            output=result.output,
            exit_code=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            full_output_path=result.full_output_path,
            exclude_from_context=True if exclude_from_context else None,
        )
        self.store_owned_message(owner, message)
        return message

    def store_owned_message(self: AgentSession, owner: MessageOwner, message: Any) -> None:
        """Store a message that finished after it started (direct bash, an extension's message) exactly
        once, in its own session and branch; in the active session it also joins the live context."""
        if self.store.session_id == owner.session_id and self.is_streaming:
            # Stored when the run ends, so it never separates an assistant turn from its tool results.
            self.deferred_messages.append((owner, message))
        else:
            self.record_owned_message(owner, message)

    def record_owned_message(self: AgentSession, owner: MessageOwner, message: Any) -> None:
        """Store it now (the agent is idle, or the owner is not the active session)."""
        if self.store.session_id != owner.session_id:
            append_on_branch(_fresh_store(owner), owner.start_leaf, message)
        elif _on_path(self.store, owner.start_leaf) or owner.start_leaf not in self.store.by_id:
            self.record_message(message)
        else:
            # The user moved to another branch meanwhile: the result goes to its own branch, and the
            # current position (and context) stays where the user put it.
            leaf = self.store.leaf_id
            append_on_branch(self.store, owner.start_leaf, message)
            self.store.set_leaf(leaf)

    def abort_bash(self: AgentSession, request_id: str | None = None) -> bool:
        """Cancel one request (by id) or all of them. Returns whether anything was cancelled."""
        if request_id is not None:
            task = self.bash_tasks.get(request_id)
            if task is None:
                return False
            task.cancel()
            return True
        for task in list(self.bash_tasks.values()):
            task.cancel()
        return bool(self.bash_tasks)

    async def shutdown_bash(self: AgentSession) -> None:
        tasks = list(self.bash_tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # Let each run_bash store its (cancelled) result before the process exits.
        for _ in range(3):
            await asyncio.sleep(0)
