"""Opening a damaged session file never fails: what can be read opens, the damage is told once, and the
damaged bytes are kept beside the file before it is rewritten. New files are whole from their first byte."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atomic.core.session import file_writes, recovery
from atomic.core.session.store import SessionStore

SESSION_ID = "019ae5f0-1234-7abc-8def-0123456789ab"
NAME = f"2026-12-04T10-00-00-000Z_{SESSION_ID}.jsonl"
ISO = "2026-12-04T10:00:00.000Z"


def header(cwd: str = "/project") -> dict[str, Any]:
    return {"type": "session", "version": 3, "id": SESSION_ID, "timestamp": ISO, "cwd": cwd}


def user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": ISO,
            "message": {"role": "user", "content": text, "timestamp": 1}}


def lines_of(*items: dict[str, Any] | str) -> str:
    return "".join((item if isinstance(item, str) else json.dumps(item)) + "\n" for item in items)


def write(folder: Path, text: str) -> Path:
    path = folder / NAME
    path.write_bytes(text.encode("utf-8"))
    return path


def backups(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{NAME}.*.damaged"))


def texts(store: SessionStore) -> list[str]:
    return [r.data["message"]["content"] for r in store.path_to() if r.type == "message"]


def reread(path: Path) -> list[dict[str, Any]]:
    # Bytes that are not UTF-8 inside an otherwise valid line read as U+FFFD, as the store reads them.
    return [json.loads(line) for line in path.read_bytes().decode("utf-8", errors="replace").split("\n") if line]


def test_a_clean_file_is_neither_reported_nor_rewritten(tmp_path: Path) -> None:
    path = write(tmp_path, lines_of(header(), user("u1", None, "one"), user("u2", "u1", "two")))
    before = path.read_bytes()
    store = SessionStore.open(path)
    assert store.recovery is None and store.warnings == []
    assert path.read_bytes() == before and backups(tmp_path) == []


def test_a_file_without_a_header_opens_with_a_made_up_one_named_after_the_file(tmp_path: Path) -> None:
    damaged = lines_of(user("u1", None, "first"), user("u2", "u1", "second"))
    path = write(tmp_path, damaged)
    store = SessionStore.open(path, Path("/where/it/ran"))
    assert store.session_id == SESSION_ID and store.cwd == "/where/it/ran"
    assert store.header["timestamp"] == ISO  # the first entry's time
    assert texts(store) == ["first", "second"]
    assert store.recovery is not None and store.recovery.header_made_up
    [backup] = backups(tmp_path)
    assert backup.read_bytes() == damaged.encode()
    rewritten = reread(path)
    assert rewritten[0]["type"] == "session" and rewritten[0]["id"] == SESSION_ID
    assert [e["id"] for e in rewritten[1:]] == ["u1", "u2"]
    assert len(store.warnings) == 1 and str(backup) in store.warnings[0] and "header" in store.warnings[0]
    # Opened again, the rewritten file is clean.
    assert SessionStore.open(path).recovery is None


@pytest.mark.parametrize("first_line", ["", "garbage", '{"type":"sess', "[1, 2, 3]", '{"type":"session"}'])
def test_an_unreadable_first_line_is_skipped_and_the_rest_opens(tmp_path: Path, first_line: str) -> None:
    path = write(tmp_path, first_line + "\n" + lines_of(user("u1", None, "kept")))
    store = SessionStore.open(path)
    assert texts(store) == ["kept"]
    assert store.recovery is not None and store.recovery.header_made_up
    assert reread(path)[0]["type"] == "session"


def test_an_empty_file_opens_as_an_empty_session(tmp_path: Path) -> None:
    path = write(tmp_path, "")
    store = SessionStore.open(path)
    assert store.records == [] and store.leaf_id is None
    store.append("message", message={"role": "user", "content": "new start", "timestamp": 2})
    assert [e["type"] for e in reread(path)] == ["session", "message"]


def test_torn_and_non_json_lines_anywhere_are_skipped_and_the_branch_goes_on(tmp_path: Path) -> None:
    damaged = lines_of(
        header(),
        user("u1", None, "one"),
        '{"type":"message","id":"u2","parentId":"u1","timest',  # torn in the middle of the file
        user("u3", "u2", "three"),  # its parent is the torn line
        "not json at all",
        "42",
        '{"no":"id"}',
        user("u4", "u3", "four"),
    ) + '{"type":"message","id":"u5","par'  # torn at the end
    path = write(tmp_path, damaged)
    store = SessionStore.open(path)
    assert texts(store) == ["one", "three", "four"]
    assert store.by_id["u3"].parent_id == "u1"
    assert store.recovery is not None
    assert store.recovery.skipped_lines == (3, 5, 6, 7, 9) and store.recovery.torn_last_line
    assert store.recovery.relinked == 1
    assert len(store.warnings) == 1 and "skipped 5 unreadable lines" in store.warnings[0]
    assert [b.read_bytes() for b in backups(tmp_path)] == [damaged.encode()]
    assert [e["id"] for e in reread(path)[1:]] == ["u1", "u3", "u4"]
    store.append("message", message={"role": "user", "content": "five", "timestamp": 3})
    assert texts(SessionStore.open(path)) == ["one", "three", "four", "five"]


def test_a_missing_parent_without_a_skipped_line_is_a_root_and_not_damage(tmp_path: Path) -> None:
    path = write(tmp_path, lines_of(header(), user("u1", None, "one"), user("o1", "gone", "orphan")))
    store = SessionStore.open(path)
    assert store.recovery is None and store.by_id["o1"].parent_id == "gone"
    assert set(store.children()[None]) == {"u1", "o1"}


def test_repeated_ids_keep_the_first_entry(tmp_path: Path) -> None:
    path = write(tmp_path, lines_of(header(), user("u1", None, "first"), user("u1", None, "again")))
    store = SessionStore.open(path)
    assert texts(store) == ["first"]
    assert store.recovery is not None and store.recovery.duplicates == 1


def test_a_file_that_cannot_be_rewritten_still_opens(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path, data: bytes) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(recovery, "create_whole", refuse)
    monkeypatch.setattr(recovery, "keep_backup", lambda *_args: (_ for _ in ()).throw(PermissionError(13, "denied")))
    damaged = lines_of(header(), user("u1", None, "one")) + '{"torn'
    path = write(tmp_path, damaged)
    store = SessionStore.open(path)
    assert texts(store) == ["one"]
    assert store.recovery is not None and store.recovery.backup is None and store.recovery.repair_error
    assert "could not be rewritten" in store.warnings[0]
    assert path.read_bytes() == damaged.encode()  # untouched
    store.append("message", message={"role": "user", "content": "two", "timestamp": 2})
    assert texts(SessionStore.open(path)) == ["one", "two"]  # appended on a line of its own


def test_a_new_file_appears_whole_by_rename_and_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[str] = []
    real_fsync = file_writes.os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append("dir" if Path(f"/proc/self/fd/{fd}").resolve().is_dir() else "file")
        real_fsync(fd)

    monkeypatch.setattr(file_writes.os, "fsync", recording_fsync)
    store = SessionStore.create(tmp_path / "sessions", tmp_path)
    store.append("model_change", provider="p", modelId="m")
    assert store.path is not None and not store.path.exists() and synced == []  # nothing worth a file yet
    store.append("message", message={"role": "user", "content": "hello", "timestamp": 1})
    assert [e["type"] for e in reread(store.path)] == ["session", "model_change", "message"]
    assert synced == ["file", "dir"]  # the temp file, then the folder after the rename
    assert oct(store.path.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in store.path.parent.iterdir()] == [store.path.name]  # no temp file left
    store.append("label", targetId="x", label="y")
    assert synced == ["file", "dir", "file"]  # every later append is fsynced before append returns


def test_copies_are_written_together_by_flush(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    writes: list[int] = []
    real = file_writes._write_all
    monkeypatch.setattr(file_writes, "_write_all", lambda fd, data: (writes.append(len(data)), real(fd, data)))
    store = SessionStore.create(tmp_path / "sessions", tmp_path)
    for index in range(50):
        store.append_existing(user(f"u{index}", f"u{index - 1}" if index else None, f"copy {index}"))
    assert writes == []
    store.flush()
    assert len(writes) == 1 and store.path is not None and len(reread(store.path)) == 51


_BASE = lines_of(header(), *(user(f"u{i}", f"u{i - 1}" if i else None, f"text {i}") for i in range(6)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    cuts=st.lists(st.tuples(st.integers(0, len(_BASE)), st.integers(0, 40)), max_size=4),
    noise=st.binary(max_size=12),
)
def test_any_damage_opens_and_keeps_every_intact_entry(tmp_path: Path, cuts: list[tuple[int, int]], noise: bytes) -> None:
    data = bytearray(_BASE.encode())
    for start, length in cuts:
        data[start : start + length] = noise
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    path = folder / NAME
    path.write_bytes(bytes(data))
    intact = {line for line in bytes(data).split(b"\n")} & {line.encode() for line in _BASE.split("\n") if line}
    store = SessionStore.open(path)
    kept = {json.dumps(r.data) for r in store.records}
    for line in intact:
        entry = json.loads(line)
        if entry["type"] == "message":
            assert entry["id"] in store.by_id, line
            assert store.by_id[entry["id"]].data["message"] == entry["message"]
    assert reread(path)[0]["type"] == "session" and len(kept) == len(store.records)
    assert SessionStore.open(path).recovery is None  # once rewritten, the file is clean
