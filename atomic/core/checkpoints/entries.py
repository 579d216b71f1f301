"""Which checkpoint belongs to which prompt, as recorded in the session file.

Each checkpoint is a `custom` entry (pi's format allows them; they never reach the model's context
or get_messages):

    {"type":"custom", ..., "customType":"atomic.checkpoint",
     "data":{"checkpointId":"...","entryId":"<user message id>"|null,"kind":"prompt"|"restore"}}

The entry is appended through the store like every other, so it is copied by fork and clone,
and found again after a restart, `-c`, `/resume` or `switch_session`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from atomic.core.session.store import EntryRecord, SessionStore

CHECKPOINT_CUSTOM_TYPE = "atomic.checkpoint"
CheckpointKind = Literal["prompt", "restore"]


@dataclass(frozen=True, slots=True)
class CheckpointEntry:
    checkpoint_id: str
    entry_id: str | None  # the user message the checkpoint precedes; None before a restore
    kind: CheckpointKind
    timestamp: str
    record_id: str  # the custom entry itself


def _entry_of(record: EntryRecord) -> CheckpointEntry | None:
    if record.type != "custom":
        return None
    data = record.data
    if data.get("customType") != CHECKPOINT_CUSTOM_TYPE:
        return None
    body = data.get("data")
    if not isinstance(body, dict) or not isinstance(body.get("checkpointId"), str):
        return None
    entry_id = body.get("entryId")
    kind: CheckpointKind = "restore" if body.get("kind") == "restore" else "prompt"
    return CheckpointEntry(
        checkpoint_id=body["checkpointId"],
        entry_id=entry_id if isinstance(entry_id, str) else None,
        kind=kind,
        timestamp=record.timestamp,
        record_id=record.id,
    )


def recorded(store: SessionStore) -> list[CheckpointEntry]:
    """Every checkpoint of the session file, on all branches, oldest first."""
    out: list[CheckpointEntry] = []
    for record in store.records:
        if record.type == "custom":
            entry = _entry_of(record)
            if entry is not None:
                out.append(entry)
    return out


def on_branch(store: SessionStore) -> list[CheckpointEntry]:
    """The checkpoints on the path from the root to the leaf, oldest first."""
    return [entry for record in store.path_to() if (entry := _entry_of(record)) is not None]


def record(store: SessionStore, checkpoint_id: str, entry_id: str | None, kind: CheckpointKind) -> None:
    store.append(
        "custom",
        customType=CHECKPOINT_CUSTOM_TYPE,
        data={"checkpointId": checkpoint_id, "entryId": entry_id, "kind": kind},
    )


def is_user_message(record: EntryRecord) -> bool:
    if record.type != "message":
        return False
    message = record.data.get("message")
    return isinstance(message, dict) and message.get("role") == "user"


def checkpoint_for_prompt(store: SessionStore, entry_id: str) -> str | None:
    """The checkpoint holding the files as they were before the user message `entry_id` ran.

    Its own checkpoint; else (a prompt whose run was never checkpointed) the first checkpoint
    after it on the way to the leaf, taken before anything later changed files. None when
    neither exists.
    """
    mine = [e.checkpoint_id for e in recorded(store) if e.entry_id == entry_id and e.kind == "prompt"]
    if mine:
        return mine[0]
    path = store.path_to()
    ids = [r.id for r in path]
    if entry_id not in ids:
        return None
    for later in path[ids.index(entry_id) + 1 :]:
        entry = _entry_of(later)
        if entry is not None and entry.kind == "prompt":
            return entry.checkpoint_id
    return None
