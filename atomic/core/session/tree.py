"""Reading a session's entry tree: the active branch, labels, the name and the first user text.

Pure functions, shared by the store (a loaded session), the listing (the first lines of files on
disk) and the HTML export (entry dicts), so the three read a session the same way. Entries are the
session file's dicts in wire form (camelCase keys); nothing here trusts their shape: a malformed
field is skipped, never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

Node = TypeVar("Node")


def entry_parent(entry: dict[str, Any]) -> str | None:
    """An entry dict's parent id (None for a root or a malformed parentId)."""
    parent = entry.get("parentId")
    return parent if isinstance(parent, str) else None


def index_by_id(entries: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """id -> entry for the entries that have a string id (a later duplicate wins)."""
    return {entry["id"]: entry for entry in entries if isinstance(entry.get("id"), str)}


def active_branch(
    by_id: Mapping[str, Node], leaf_id: str | None, parent_of: Callable[[Node], str | None]
) -> list[Node]:
    """The nodes from the root down to `leaf_id`, in reading order ([] when `leaf_id` is None).

    The walk stops at a missing parent, and `seen` guards against a corrupt file whose parent ids
    form a cycle. A loop, not recursion: a branch may be any number of entries deep.
    """
    path: list[Node] = []
    seen: set[str] = set()
    current = leaf_id
    while current is not None and current not in seen:
        node = by_id.get(current)
        if node is None:
            break
        seen.add(current)
        path.append(node)
        current = parent_of(node)
    path.reverse()
    return path


def labels_by_target(label_entries: Iterable[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """target id -> (label, label entry's timestamp): the latest `label` entry wins, an empty one clears.

    Entries of other types are ignored, so callers may pass all entries or only the label ones.
    """
    labels: dict[str, tuple[str, str]] = {}
    for entry in label_entries:
        target = entry.get("targetId")
        if entry.get("type") != "label" or not isinstance(target, str) or not target:
            continue
        label = entry.get("label")
        if isinstance(label, str) and label:
            labels[target] = (label, str(entry.get("timestamp", "")))
        else:
            labels.pop(target, None)
    return labels


def name_of(session_info: dict[str, Any]) -> str | None:
    """The name a `session_info` entry sets (stripped), or None when it clears the name."""
    value = session_info.get("name")
    return value.strip() or None if isinstance(value, str) else None


def session_name(entries: Iterable[dict[str, Any]]) -> str | None:
    """The name of the latest `session_info` entry, or None when unnamed."""
    name: str | None = None
    for entry in entries:
        if entry.get("type") == "session_info":
            name = name_of(entry)
    return name


def message_text(message: dict[str, Any]) -> str:
    """The text of a stored message's content: a string, or its text blocks joined by spaces."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            text
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(text := block.get("text", ""), str)
        )
    return ""


def first_user_text(entries: Iterable[dict[str, Any]], limit: int = 200) -> str:
    """The first user message's text on one line, cut to `limit` characters ("" when none).

    A user message without text (only an image) is passed over for the next one.
    """
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "user" and (text := message_text(message)):
            return text.strip().replace("\n", " ")[:limit]
    return ""
