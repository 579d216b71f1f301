"""The session file: an append-only JSONL tree.

Line 1 is the header `{"type":"session","version":3,"id","timestamp","cwd","parentSession"?}`; every later
line is an entry with `type`, `id`, `parentId` and `timestamp`. The leaf is the current position: new
entries become its children, and moving the leaf back and appending again makes a branch. Nothing is
ever rewritten or deleted.

For big files the store reads the file once: each entry keeps its raw JSON line (spliced as is into
`get_entries` / `get_tree` answers) and its parsed dict; messages are validated into models only when
the engine needs them (see context.py). The tree is flat: id -> record, and a children index.
The file is created when the first message entry arrives (entries before it are buffered), every append
is one `write`, and message entries are fsynced.
"""

from __future__ import annotations

import contextlib
import gc
import json
import json.scanner
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import json_text
from atomic.core.ids import file_stamp, iso_now, short_id, uuid7
from atomic.core.private_files import ensure_private_dir
from atomic.core.session.tree import active_branch, labels_by_target, name_of

SESSION_VERSION = 3


class SessionFileError(Exception):
    pass


@dataclass(slots=True)
class EntryRecord:
    id: str
    parent_id: str | None
    type: str
    timestamp: str
    raw: str
    _data: dict[str, Any] | None = field(default=None, repr=False)
    # Where the `message` value starts in `raw` when it is the line's last member (0: unknown);
    # the message's own JSON text is then raw[message_at:-1], sent without re-encoding.
    message_at: int = field(default=0, repr=False)

    @property
    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = json.loads(self.raw)
        return self._data

    @property
    def message_json(self) -> str | None:
        """The stored JSON text of this entry's message, when known."""
        return self.raw[self.message_at : -1] if self.message_at else None


# The layout Atomic and pi write message entries in (no escapes in ids and times): the message is
# parsed at its offset, and when only the closing brace follows it, its span in the line is known.
_MESSAGE_PREFIX = re.compile(
    r'\{"type":"message","id":"([^"\\]*)","parentId":(null|"[^"\\]*"),"timestamp":"([^"\\]*)","message":'
)
# typeshed types make_scanner's argument as a make_scanner (its TODO: any object with a decoder's attributes).
_decoder: Any = json.JSONDecoder()
_scan_value = json.scanner.make_scanner(_decoder)


def parse_entry_line(line: str) -> tuple[Any, int]:
    """One entry line: its parsed value, and the offset of its `message` value (0 when unknown).

    ValueError (or RecursionError) when the line is not JSON.
    """
    match = _MESSAGE_PREFIX.match(line)
    if match is not None:
        try:
            message, end = _scan_value(line, match.end())
        except StopIteration:
            raise ValueError(f"invalid JSON at column {match.end() + 1}") from None
        if line[end:] == "}":
            parent = match.group(2)
            data = {
                "type": "message",
                "id": match.group(1),
                "parentId": None if parent == "null" else parent[1:-1],
                "timestamp": match.group(3),
                "message": message,
            }
            return data, match.end()
    return json.loads(line), 0


class SessionStore:
    def __init__(self, header: dict[str, Any], path: Path | None) -> None:
        self.header = header
        self.path = path
        self.records: list[EntryRecord] = []
        self.by_id: dict[str, EntryRecord] = {}
        self.position: dict[str, int] = {}
        self.leaf_id: str | None = None
        self.warnings: list[str] = []
        self._written = path is not None and path.exists()
        self._needs_newline = False
        self._children_cache: dict[str | None, list[str]] | None = None

    # ------------------------------------------------------------------ creation / loading

    @classmethod
    def create(
        cls, session_dir: Path | None, cwd: Path, parent_session: str | None = None
    ) -> SessionStore:
        """A new session; `session_dir=None` keeps it in memory only."""
        header: dict[str, Any] = {
            "type": "session",
            "version": SESSION_VERSION,
            "id": uuid7(),
            "timestamp": iso_now(),
            "cwd": str(cwd),
        }
        if parent_session:
            header["parentSession"] = parent_session
        path = None
        if session_dir is not None:
            path = session_dir / f"{file_stamp(header['timestamp'])}_{header['id']}.jsonl"
        return cls(header, path)

    @classmethod
    def open(cls, path: Path) -> SessionStore:
        try:
            raw_bytes = path.read_bytes()
        except OSError as exc:
            raise SessionFileError(f"Cannot open session file {path}: {exc.strerror or exc}") from exc
        text = raw_bytes.decode("utf-8", errors="replace")
        lines = text.split("\n")
        # A file that does not end with a newline has a torn (or at least unterminated) last line.
        needs_newline = bool(text) and not text.endswith("\n")
        if not lines or not lines[0].strip():
            raise SessionFileError(f"Session file {path} is empty")
        try:
            header = json.loads(lines[0])
        except ValueError as exc:
            raise SessionFileError(f"Session file {path} has no valid header line: {exc}") from exc
        if not isinstance(header, dict) or header.get("type") != "session":
            raise SessionFileError(f"{path} is not an Atomic session file (line 1 is not a session header)")
        store = cls(header, path)
        store._needs_newline = needs_newline
        # Building ~10 objects per entry triggers a garbage collection pass every few hundred
        # entries, each walking everything built so far: half of the load time for 50,000 entries.
        # Parsed JSON holds no reference cycles, so nothing is lost by pausing the collector.
        collecting = gc.isenabled()
        # Collect now so that no garbage cycle is frozen with the entries below.
        gc.collect()
        gc.disable()
        try:
            store._load(lines, path)
        finally:
            if collecting:
                gc.enable()
        # The loaded entries live as long as the session; without this the next full collection
        # (due right away: they are most of the heap) would walk them all, and every one after.
        # They hold no cycles, so dropping the session still frees them by reference counting.
        if collecting:
            gc.freeze()
        return store

    def _load(self, lines: list[str], path: Path) -> None:
        last = len(lines) - 1
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            line = line.strip(" \t\r")
            try:
                data, message_at = parse_entry_line(line)
                record = EntryRecord(
                    id=str(data["id"]),
                    parent_id=data.get("parentId"),
                    type=str(data["type"]),
                    timestamp=str(data.get("timestamp", "")),
                    # Trimmed of JSON whitespace (a CRLF file's \r) so it can be spliced into output.
                    raw=line,
                    # Parsed once: the dict is kept, so nothing parses the file a second time.
                    _data=data,
                    message_at=message_at,
                )
            except (ValueError, KeyError, TypeError, RecursionError) as exc:
                where = "last line (torn write)" if number - 1 == last else f"line {number}"
                self.warnings.append(f"Skipped unreadable {where} in {path.name}: {exc}")
                continue
            self._add(record)
        self.leaf_id = self.records[-1].id if self.records else None

    # ------------------------------------------------------------------ properties

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    @property
    def in_memory(self) -> bool:
        return self.path is None

    def get(self, entry_id: str) -> dict[str, Any] | None:
        record = self.by_id.get(entry_id)
        return record.data if record else None

    # ------------------------------------------------------------------ writing

    def _add(self, record: EntryRecord) -> None:
        if record.id in self.by_id:
            # A duplicate id would make the tree ambiguous; keep the first and report it.
            self.warnings.append(f"Duplicate entry id {record.id} skipped")
            return
        self.position[record.id] = len(self.records)
        self.records.append(record)
        self.by_id[record.id] = record
        self._children_cache = None

    def _new_id(self) -> str:
        for _ in range(16):
            candidate = short_id()
            if candidate not in self.by_id:
                return candidate
        return uuid7()

    def append(self, entry_type: str, **fields: Any) -> dict[str, Any]:
        """Append an entry as a child of the leaf and make it the new leaf."""
        entry: dict[str, Any] = {
            "type": entry_type,
            "id": self._new_id(),
            "parentId": self.leaf_id,
            "timestamp": iso_now(),
        }
        entry.update(fields)
        raw = json_text(entry)
        record = EntryRecord(entry["id"], entry["parentId"], entry_type, entry["timestamp"], raw, entry)
        self._add(record)
        self.leaf_id = record.id
        self._persist(record, sync=entry_type in ("message", "compaction"))
        return entry

    def append_existing(self, entry: dict[str, Any]) -> None:
        """Copy an entry from another session verbatim (fork/clone keep ids, parents and times)."""
        raw = json_text(entry)
        record = EntryRecord(entry["id"], entry.get("parentId"), entry["type"], entry.get("timestamp", ""), raw, entry)
        self._add(record)
        self.leaf_id = record.id
        self._persist(record, sync=False)

    def _persist(self, record: EntryRecord, *, sync: bool) -> None:
        if self.path is None:
            return
        if not self._written:
            # Defer creating the file until there is a message worth keeping.
            if record.type not in ("message", "compaction", "custom", "session_info", "label"):
                return
            self._create_file()
            return
        prefix = "\n" if self._needs_newline else ""
        self._write((prefix + record.raw + "\n").encode("utf-8"), sync=sync)
        self._needs_newline = False

    def _create_file(self) -> None:
        """Write the header and every buffered entry as a new file, all or nothing."""
        assert self.path is not None
        ensure_private_dir(self.path.parent)
        lines = [json_text(self.header)]
        lines.extend(r.raw for r in self.records)
        # Encoded before the file exists, so bad text can never leave an empty or partial file behind.
        data = ("\n".join(lines) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            self._write_all(fd, data)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            # A failed first write (disk full, I/O error) removes the file: a later append retries.
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            raise
        os.close(fd)
        self._written = True

    def _write(self, data: bytes, *, sync: bool) -> None:
        assert self.path is not None
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            self._write_all(fd, data)
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)

    @staticmethod
    def _write_all(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]

    def flush(self) -> None:
        """Write the file now even if no message exists yet (used by fork/clone/export)."""
        if self.path is None or self._written:
            return
        self._create_file()

    # ------------------------------------------------------------------ navigation

    def set_leaf(self, entry_id: str | None) -> None:
        if entry_id is not None and entry_id not in self.by_id:
            raise KeyError(f"Entry not found: {entry_id}")
        self.leaf_id = entry_id

    def path_to(self, entry_id: str | None = None) -> list[EntryRecord]:
        """Entries from the root down to `entry_id` (default: the leaf)."""
        current = self.leaf_id if entry_id is None else entry_id
        return active_branch(self.by_id, current, _record_parent)

    def entries_since(self, cursor: str | None) -> list[dict[str, Any]]:
        if cursor is None:
            start = 0
        else:
            if cursor not in self.position:
                raise KeyError(f"Unknown entry id: {cursor}")
            start = self.position[cursor] + 1
        return [r.data for r in self.records[start:]]

    def raw_since(self, cursor: str | None) -> list[str]:
        """The stored JSON lines of the entries after `cursor` (all when None), as `entries_since`."""
        if cursor is None:
            return [r.raw for r in self.records]
        if cursor not in self.position:
            raise KeyError(f"Unknown entry id: {cursor}")
        return [r.raw for r in self.records[self.position[cursor] + 1 :]]

    def children(self) -> dict[str | None, list[str]]:
        if self._children_cache is None:
            kids: dict[str | None, list[str]] = {}
            for record in self.records:
                parent = record.parent_id if record.parent_id in self.by_id else None
                kids.setdefault(parent, []).append(record.id)
            self._children_cache = kids
        return self._children_cache

    def labels(self) -> dict[str, tuple[str, str]]:
        """target id -> (label, timestamp); the latest label entry wins, an empty label clears."""
        return labels_by_target(record.data for record in self.records if record.type == "label")

    def tree(self) -> list[dict[str, Any]]:
        kids = self.children()
        labels = self.labels()

        def node(entry_id: str) -> dict[str, Any]:
            record = self.by_id[entry_id]
            item: dict[str, Any] = {"entry": record.data, "children": []}
            if entry_id in labels:
                item["label"], item["labelTimestamp"] = labels[entry_id]
            return item

        roots = [node(i) for i in kids.get(None, [])]
        # Iterative fill keeps deep (10,000-entry) chains from hitting the recursion limit.
        stack = list(roots)
        while stack:
            item = stack.pop()
            for child_id in kids.get(item["entry"]["id"], []):
                child = node(child_id)
                item["children"].append(child)
                stack.append(child)
        return roots

    def name(self) -> str | None:
        # The latest session_info decides; searched from the end, where it usually is.
        for record in reversed(self.records):
            if record.type == "session_info":
                return name_of(record.data)
        return None


def _record_parent(record: EntryRecord) -> str | None:
    return record.parent_id
