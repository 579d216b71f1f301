"""The session file: an append-only JSONL tree.

Line 1 is the header `{"type":"session","version":3,"id","timestamp","cwd","parentSession"?}`; every later
line is an entry with `type`, `id`, `parentId` and `timestamp`. The leaf is the current position: new
entries become its children, and moving the leaf back and appending again makes a branch. Nothing is
ever rewritten or deleted.

For big files the store reads the file once: each entry keeps its raw JSON line (spliced as is into
`get_entries` / `get_tree` answers) and its parsed dict; messages are validated into models only when
the engine needs them (see context.py). The tree is flat: id -> record, and a children index.
The file is created when the first message entry arrives (entries before it are buffered), whole, by
rename (file_writes.py); every later append is whole lines in one `write`, fsynced before `append`
returns. A damaged file opens with what can be read (recovery.py).
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from atomic.core.atomic_io import json_text
from atomic.core.ids import file_stamp, iso_now, short_id, uuid7
from atomic.core.session.entry_line import EntryRecord, parse_entry_line
from atomic.core.session.file_writes import append_lines, create_whole
from atomic.core.session.recovery import Damage, Recovery, made_up_header, repair
from atomic.core.session.tree import active_branch, labels_by_target, name_of

SESSION_VERSION = 3
# Entry types that make a new session worth a file; the others wait in memory until one comes.
_WORTH_A_FILE = frozenset({"message", "compaction", "custom", "session_info", "label"})


class SessionFileError(Exception):
    pass


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
        # Entries appended but not yet on disk: before the file exists, or copies waiting for `flush`.
        self._unwritten: list[EntryRecord] = []
        # Set when the file was damaged and had to be opened by skipping or mending parts of it.
        self.recovery: Recovery | None = None
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
    def open(cls, path: Path, cwd: Path | None = None) -> SessionStore:
        """Open a session file, damaged or not; only a file that cannot be read at all raises.

        A missing or invalid header is made up (with `cwd`, default the current folder), unreadable
        lines are skipped, and an entry whose parent was such a line is attached to the entry before.
        Then the damaged bytes are kept beside the file and the file is rewritten as it was read;
        `recovery` (and one line in `warnings`) says what was done.
        """
        if path.is_dir():
            raise SessionFileError(f"Cannot open session file {path}: it is a folder")
        try:
            raw_bytes = path.read_bytes()
        except OSError as exc:
            raise SessionFileError(f"Cannot open session file {path}: {exc.strerror or exc}") from exc
        text = raw_bytes.decode("utf-8", errors="replace")
        lines = text.split("\n")
        damage = Damage()
        header = _header_of(lines[0])
        if header is None:
            damage.header_made_up = True
            header = made_up_header(path, cwd, _first_timestamp(lines), SESSION_VERSION)
        store = cls(header, path)
        # A file that does not end with a newline has a torn (or at least unterminated) last line.
        store._needs_newline = bool(text) and not text.endswith("\n")
        # Building ~10 objects per entry triggers a garbage collection pass every few hundred
        # entries, each walking everything built so far: half of the load time for 50,000 entries.
        # Parsed JSON holds no reference cycles, so nothing is lost by pausing the collector.
        collecting = gc.isenabled()
        # Collect now so that no garbage cycle is frozen with the entries below.
        gc.collect()
        gc.disable()
        try:
            store._load(lines, 0 if damage.header_made_up else 1, damage)
        finally:
            if collecting:
                gc.enable()
        # The loaded entries live as long as the session; without this the next full collection
        # (due right away: they are most of the heap) would walk them all, and every one after.
        # They hold no cycles, so dropping the session still frees them by reference counting.
        if collecting:
            gc.freeze()
        if damage:
            store.recovery = repair(path, raw_bytes, [json_text(header), *(r.raw for r in store.records)], damage)
            store._needs_newline = store.recovery.repair_error is not None and store._needs_newline
            store.warnings.append(store.recovery.summary())
        return store

    def _load(self, lines: list[str], first: int, damage: Damage) -> None:
        last = len(lines) - 1
        previous: str | None = None
        after_skipped = False
        for index in range(first, len(lines)):
            line = lines[index]
            if not line.strip():
                continue
            line = line.strip(" \t\r")
            try:
                data, message_at = parse_entry_line(line)
                parent = data.get("parentId")
                record = EntryRecord(
                    id=str(data["id"]),
                    parent_id=parent,
                    type=str(data["type"]),
                    timestamp=str(data.get("timestamp", "")),
                    # Trimmed of JSON whitespace (a CRLF file's \r) so it can be spliced into output.
                    raw=line,
                    # Parsed once: the dict is kept, so nothing parses the file a second time.
                    _data=data,
                    message_at=message_at,
                )
                if record.type == "session":
                    raise ValueError("a second session header")
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                after_skipped = True
                damage.skipped_lines.append(index + 1)
                damage.torn_last_line = damage.torn_last_line or index == last
                continue
            if record.id in self.by_id:
                # A duplicate id would make the tree ambiguous; the first one is kept.
                damage.duplicates += 1
                continue
            if after_skipped and parent is not None and (not isinstance(parent, str) or parent not in self.by_id):
                # Its parent is most likely the unreadable line just before it: attached to the entry
                # before that one, the branch goes on. (A missing parent elsewhere makes a root, as in pi.)
                _relink(record, previous)
                damage.relinked += 1
            self._add(record)
            previous = record.id
            after_skipped = False
        self.leaf_id = self.records[-1].id if self.records else None

    # ------------------------------------------------------------------ properties

    @property
    def session_id(self) -> str:
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    def get(self, entry_id: str) -> dict[str, Any] | None:
        record = self.by_id.get(entry_id)
        return record.data if record else None

    # ------------------------------------------------------------------ writing

    def _add(self, record: EntryRecord) -> None:
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
        """Append an entry as a child of the leaf and make it the new leaf.

        When this returns, the entry is on disk (written and fsynced), so it may be acknowledged;
        until the file exists, entries that are not worth a file alone (model changes) wait in memory.
        """
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
        if self.path is not None:
            self._unwritten.append(record)
            if self._written or any(r.type in _WORTH_A_FILE for r in self._unwritten):
                self._write_unwritten()
        return entry

    def append_existing(self, entry: dict[str, Any]) -> None:
        """Copy an entry from another session verbatim (fork/clone keep ids, parents and times).

        Copies are written together by the next `flush` (or `append`): one write and one fsync.
        """
        raw = json_text(entry)
        record = EntryRecord(entry["id"], entry.get("parentId"), entry["type"], entry.get("timestamp", ""), raw, entry)
        if record.id in self.by_id:
            self.warnings.append(f"Duplicate entry id {record.id} skipped")
            return
        self._add(record)
        self.leaf_id = record.id
        if self.path is not None:
            self._unwritten.append(record)

    def _write_unwritten(self) -> None:
        assert self.path is not None
        lines = [r.raw for r in self._unwritten]
        if not self._written:
            # Encoded before any file exists, so bad text can never leave a partial file behind; a
            # failed write leaves no file (and the entries waiting), so the next append tries again.
            create_whole(self.path, ("\n".join([json_text(self.header), *lines]) + "\n").encode("utf-8"))
            self._written = True
        else:
            prefix = "\n" if self._needs_newline else ""
            try:
                append_lines(self.path, (prefix + "\n".join(lines) + "\n").encode("utf-8"))
            except BaseException:
                # Part of it may have been written: the retry starts on a line of its own.
                self._needs_newline = True
                raise
            self._needs_newline = False
        self._unwritten.clear()

    def flush(self) -> None:
        """Write the file now even if no message exists yet (used by fork/clone/import/export)."""
        if self.path is None or (self._written and not self._unwritten):
            return
        self._write_unwritten()

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


def _header_of(line: str) -> dict[str, Any] | None:
    try:
        header = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str):
        return header
    return None


def _first_timestamp(lines: list[str]) -> str | None:
    """The first readable entry's timestamp (the time of a session that lost its header)."""
    for line in lines[:50]:
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(data, dict) and isinstance(data.get("timestamp"), str):
            return str(data["timestamp"])
    return None


def _relink(record: EntryRecord, parent: str | None) -> None:
    """Give `record` a new parent, and its stored line with it."""
    data = dict(record.data)
    data["parentId"] = parent
    record.parent_id = parent
    record.raw = json_text(data)
    record._data, record.message_at = parse_entry_line(record.raw)
