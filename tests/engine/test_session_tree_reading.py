"""One reading of a session's tree (atomic/core/session/tree.py) for the store, the listing and the export:
the active branch, labels, the name and the first user text agree on the same file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.export.branch import active_branch as export_branch
from atomic.core.export.branch import labels_by_target as export_labels
from atomic.core.session import tree
from atomic.core.session.listing import read_session_info
from atomic.core.session.store import SessionStore


def entry(entry_id: str, parent: str | None, kind: str = "message", **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": f"2026-12-01T10:00:0{len(entry_id)}Z", **fields}


def user(entry_id: str, parent: str | None, content: Any) -> dict[str, Any]:
    return entry(entry_id, parent, message={"role": "user", "content": content, "timestamp": 1})


# a - b - c (abandoned)
#      \- d - labels/name entries - leaf
ENTRIES = [
    user("a", None, [{"type": "image", "data": "x", "mimeType": "image/png"}]),
    user("b", "a", [{"type": "text", "text": "first\nquestion"}, {"type": "text", "text": "again"}]),
    user("c", "b", "abandoned"),
    user("d", "b", "kept"),
    entry("l1", "d", "label", targetId="b", label="start"),
    entry("l2", "l1", "label", targetId="d", label="gone"),
    entry("l3", "l2", "label", targetId="d", label=""),
    entry("n1", "l3", "session_info", name="  old  "),
    entry("n2", "n1", "session_info", name=" Session name "),
]


def write(path: Path, entries: list[dict[str, Any]]) -> Path:
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-12-01T10:00:00Z", "cwd": "/w"}
    path.write_text("\n".join(json.dumps(e) for e in [header, *entries]) + "\n")
    return path


def test_active_branch_leaves_out_abandoned_entries_and_survives_cycles() -> None:
    by_id = tree.index_by_id(ENTRIES)
    assert [e["id"] for e in tree.active_branch(by_id, "d", tree.entry_parent)] == ["a", "b", "d"]
    assert tree.active_branch(by_id, None, tree.entry_parent) == []
    cyclic = tree.index_by_id([entry("x", "y"), entry("y", "x")])
    assert [e["id"] for e in tree.active_branch(cyclic, "x", tree.entry_parent)] == ["y", "x"]
    # A branch deeper than the recursion limit is read by a loop.
    chain = tree.index_by_id([entry(f"e{i}", f"e{i - 1}" if i else None) for i in range(5000)])
    assert len(tree.active_branch(chain, "e4999", tree.entry_parent)) == 5000


def test_labels_latest_wins_and_empty_clears() -> None:
    labels = tree.labels_by_target(ENTRIES)
    assert labels == {"b": ("start", ENTRIES[4]["timestamp"])}
    assert tree.labels_by_target([entry("l", None, "label", targetId=7, label="x")]) == {}


def test_name_is_the_latest_session_info_stripped_and_first_text_skips_textless_prompts() -> None:
    assert tree.session_name(ENTRIES) == "Session name"
    assert tree.session_name([*ENTRIES, entry("n3", "n2", "session_info", name="  ")]) is None
    assert tree.session_name(ENTRIES[:4]) is None
    assert tree.first_user_text(ENTRIES) == "first question again"
    assert tree.first_user_text(ENTRIES, limit=5) == "first"
    assert tree.first_user_text([entry("z", None, message="not a dict")]) == ""


@pytest.mark.parametrize("leaf", ["n2", "c"])
def test_store_listing_and_export_read_the_same_tree(tmp_path: Path, leaf: str) -> None:
    path = write(tmp_path / "s.jsonl", ENTRIES)
    store = SessionStore.open(path)
    store.set_leaf(leaf)
    assert [r.id for r in store.path_to()] == [e["id"] for e in export_branch(ENTRIES, leaf)]
    assert {k: v[0] for k, v in store.labels().items()} == export_labels(ENTRIES)
    info = read_session_info(path)
    assert info is not None
    assert info.name == store.name() == "Session name"
    assert info.first_message == "first question again"
    with pytest.raises(ValueError, match="Unknown leaf"):
        export_branch(ENTRIES, "missing")
