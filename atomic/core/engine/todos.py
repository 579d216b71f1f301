"""TodoTracker: the to-do list of the branch the session is on.

The list is never stored apart: it is the details of the last `todo` tool result in the model's
context (or the note a compaction leaves in its place). The tracker reads it from the context items
incrementally, so `get_state` during a long session does not walk the whole branch each time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from atomic.core.events import Event, TodoUpdate
from atomic.core.session.context import ContextItem
from atomic.core.tools.todo import TodoItem, todos_in_message


class TodoTracker:
    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._items: list[ContextItem] | None = None
        self._scanned = 0
        self._current: tuple[TodoItem, ...] = ()

    def current(self, items: list[ContextItem]) -> tuple[TodoItem, ...]:
        """The list as of the newest item (empty when no list was set on this branch)."""
        if items is not self._items:
            self._items = items
            self._scanned = len(items)
            self._current = self._newest(reversed(items)) or ()
        elif len(items) > self._scanned:
            newer = self._newest(reversed(items[self._scanned :]))
            self._scanned = len(items)
            if newer is not None:
                self._current = newer
        return self._current

    def refresh(self, items: list[ContextItem]) -> None:
        """After the context was rebuilt (resume, switch, tree navigation, compaction): tell the
        frontends when the branch holds another list than before."""
        before = self._current
        if self.current(items) != before:
            self._emit(self._event())

    def recorded(self, items: list[ContextItem]) -> None:
        """After a message was added to the context: an update when it changed the list."""
        before = self._current
        if self.current(items) != before or (items and self._sets_list(items[-1])):
            self._emit(self._event())

    def _event(self) -> TodoUpdate:
        return TodoUpdate(todos=[item.to_dict() for item in self._current])

    @staticmethod
    def _sets_list(item: ContextItem) -> bool:
        return todos_in_message(item.wire) is not None

    @staticmethod
    def _newest(items_newest_first: Iterable[ContextItem]) -> tuple[TodoItem, ...] | None:
        for item in items_newest_first:
            found = todos_in_message(item.wire)
            if found is not None:
                return found
        return None
