"""Queued messages on disk: a `steer` or `follow_up` acknowledged while the agent streams is kept in
`<session>.jsonl.queue` until its user message is in the session file.

A queued message is not an entry yet (it joins the tree when it is delivered, after the current turn),
so it cannot go into the session file without splitting an assistant message from its tool results.
The journal beside it holds the queues as they are: rewritten whole (temp file, fsync, rename) when a
message is queued and before the acknowledgement, and again once a delivered message has been stored
(never before: a crash in between would lose it), or removed when nothing waits. Opening the session
puts what the journal still holds back in the queues, leaving out any message already stored.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from atomic.core.agent.queues import MessageQueue, QueuedMessage
from atomic.core.atomic_io import json_text
from atomic.core.messages import ImageContent
from atomic.core.session.entry_line import EntryRecord
from atomic.core.session.file_writes import create_whole, fsync_folder
from atomic.core.session.tree import message_text

STEER = "steer"
FOLLOW_UP = "followUp"


def journal_path(session_file: Path) -> Path:
    """`<session>.jsonl.queue`: beside the file, and never listed as a session."""
    return session_file.with_name(session_file.name + ".queue")


def now_ms() -> int:
    return int(time.time() * 1000)


class QueueJournal:
    """Keeps the journal of the active session in step with the steering and follow-up queues."""

    def __init__(self, active_file: Callable[[], Path | None], queues: Callable[[], tuple[MessageQueue, MessageQueue]]):
        self._active_file = active_file
        self._queues = queues
        self._saved: list[QueuedMessage] = []
        self._saved_to: Path | None = None

    def _current(self) -> list[tuple[str, QueuedMessage]]:
        steering, follow_ups = self._queues()
        return [(STEER, item) for item in steering.items] + [(FOLLOW_UP, item) for item in follow_ups.items]

    def changed(self) -> None:
        """After any change of the queues: saved now when a message was added.

        A message taken out for delivery stays in the journal until `stored` (its user message is on
        disk by then).
        """
        current = [item for _, item in self._current()]
        if self._saved_to != self._active_file() or any(all(item is not s for s in self._saved) for item in current):
            self.save()

    def stored(self) -> None:
        """After a user message was stored: the messages it delivered leave the journal."""
        if [item for _, item in self._current()] != self._saved or self._saved_to != self._active_file():
            self.save()

    def restore(self, records: Iterable[EntryRecord], announce: Callable[[], None]) -> None:
        """Put back the messages queued in the active session file (whose `records` these are) and
        never stored in it, then `announce` the queues; a journal of messages already stored is removed."""
        stored = (
            r.data["message"] for r in records
            if r.type == "message" and isinstance(r.data.get("message"), dict) and r.data["message"].get("role") == "user"
        )
        if restore_queues(self._active_file(), stored, *self._queues()):
            announce()
        else:
            self.stored()

    def save(self) -> None:
        """Write the queues as they are (or remove the journal when they are empty)."""
        session_file = self._active_file()
        current = self._current()
        self._saved = [item for _, item in current]
        self._saved_to = session_file
        if session_file is None:
            return
        path = journal_path(session_file)
        if not current:
            if path.exists():
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                fsync_folder(path.parent)
            return
        lines = [json_text(_item_json(queue, item)) for queue, item in current]
        create_whole(path, ("\n".join(lines) + "\n").encode("utf-8"))


def _item_json(queue: str, item: QueuedMessage) -> dict[str, Any]:
    data: dict[str, Any] = {"queue": queue, "text": item.text, "queuedAt": item.queued_at}
    if item.images:
        data["images"] = [image.to_wire() for image in item.images]
    return data


def read_journal(session_file: Path, stored_user_messages: Iterable[dict[str, Any]]) -> list[tuple[str, QueuedMessage]]:
    """The messages the journal of `session_file` holds that are not stored yet, oldest first.

    A message counts as stored when a user message with its text was stored at or after the time it
    was queued (it was delivered, and the journal not yet rewritten, when the process stopped).
    Unreadable lines are skipped.
    """
    try:
        text = journal_path(session_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    stored = [(message_text(m), m.get("timestamp")) for m in stored_user_messages]
    out: list[tuple[str, QueuedMessage]] = []
    for line in text.split("\n"):
        try:
            data = json.loads(line)
            queue, body, queued_at = data["queue"], data["text"], int(data.get("queuedAt", 0))
            images = [ImageContent.model_validate(i) for i in data.get("images", [])]
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue
        if queue not in (STEER, FOLLOW_UP) or not isinstance(body, str):
            continue
        if any(t == body and isinstance(at, int) and at >= queued_at for t, at in stored):
            continue
        out.append((queue, QueuedMessage(body, images, queued_at)))
    return out


def restore_queues(
    session_file: Path | None,
    stored_user_messages: Iterable[dict[str, Any]],
    steering: MessageQueue,
    follow_ups: MessageQueue,
) -> int:
    """Put back in the queues what the journal of `session_file` holds; returns how many."""
    if session_file is None:
        return 0
    items = read_journal(session_file, stored_user_messages)
    for queue, item in items:
        (steering if queue == STEER else follow_ups).push(item)
    return len(items)
