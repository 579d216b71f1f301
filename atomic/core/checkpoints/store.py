"""The checkpoint store of one project folder: content-addressed file copies and manifests.

It lives under the agent dir, `checkpoints/<folder name>-<hash of the folder path>/`, never in the
project, and never touches the project's own repository:

    packs/<id>.pack      the file contents (or symlink targets) one scan stored, back to back
    packs/<id>.idx       where each content is in that pack, by its BLAKE2b digest (zlib'd JSON lines)
    manifests/<id>.ckpt  one checkpoint: every covered path with digest, mode and the stat
                         fields that let the next checkpoint skip unchanged files (zlib'd JSON lines)

A content is stored once, whatever the number of checkpoints holding it. One pack per scan, not
one file per content: creating 50,000 small files costs seconds, appending them to one costs
little. A pack is complete before its index is renamed into place, and every scan writes its own
pack, so several Atomic processes can share a store. Nothing is fsynced (a checkpoint is a
convenience, not the user's data); a copy damaged by a crash is caught by its digest when read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from atomic.core.atomic_io import file_lock
from atomic.core.ids import uuid7

MANIFEST_VERSION = 2
CHUNK_ROWS = 1000
MANIFEST_SUFFIX = ".ckpt"
PACK_SUFFIX = ".pack"
INDEX_SUFFIX = ".idx"
DIGEST_SIZE = 20
PRUNE_MARKER = "last-prune"
PRUNE_INTERVAL_S = 24 * 3600


class CheckpointMissing(Exception):
    """The checkpoint's manifest is not in the store (pruned, or never finished)."""


class DamagedCopy(Exception):
    """A stored copy does not match its digest."""


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=DIGEST_SIZE).hexdigest()


@dataclass(frozen=True, slots=True)
class FileState:
    digest: str
    mode: int  # the full st_mode: a symlink keeps S_IFLNK
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int


@dataclass(slots=True)
class Manifest:
    checkpoint_id: str
    created: str  # ISO time
    scanned_ns: int  # wall clock when the scan began (decides which stat matches can be trusted)
    files: dict[str, FileState] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason

    def encode(self) -> bytes:
        head = {
            "version": MANIFEST_VERSION,
            "id": self.checkpoint_id,
            "created": self.created,
            "scannedNs": self.scanned_ns,
            "skipped": [[p, r] for p, r in self.skipped.items()],
        }
        rows = [[p, f.digest, f.mode, f.size, f.mtime_ns, f.ctime_ns, f.ino] for p, f in self.files.items()]
        return zlib.compress(chunked_json(head, rows).encode("utf-8"), 1)

    @classmethod
    def decode(cls, raw: bytes) -> Manifest:
        head, rows = read_chunked_json(zlib.decompress(raw).decode("utf-8"))
        return cls(
            checkpoint_id=str(head["id"]),
            created=str(head["created"]),
            scanned_ns=int(head["scannedNs"]),
            files={row[0]: FileState(*row[1:7]) for row in rows},
            skipped={str(p): str(r) for p, r in head.get("skipped", [])},
        )


def chunked_json(head: dict[str, object], rows: list[list[object]]) -> str:
    """A head line, then the rows as JSON arrays of `CHUNK_ROWS` each, one per line.

    The JSON encoder and decoder hold the interpreter for a whole call: one call over 50,000 rows
    kept the event loop's thread waiting for a tenth of a second; chunks of 1,000 let it in.
    """
    lines = [json.dumps(head, separators=(",", ":"))]
    for start in range(0, len(rows), CHUNK_ROWS):
        lines.append(json.dumps(rows[start : start + CHUNK_ROWS], separators=(",", ":")))
    return "\n".join(lines)


def read_chunked_json(text: str) -> tuple[dict[str, Any], list[list[Any]]]:
    lines = text.split("\n")
    head = json.loads(lines[0])
    rows: list[list[Any]] = []
    for line in lines[1:]:
        rows.extend(json.loads(line))
    return head, rows


def project_key(folder: Path) -> str:
    resolved = str(folder.resolve())
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in (Path(resolved).name or "root"))
    return f"{name[:40]}-{hashlib.sha256(resolved.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


class CheckpointStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.packs = root / "packs"
        self.manifests = root / "manifests"
        # digest -> (pack id, offset, length), for every pack read so far.
        self._index: dict[str, tuple[str, int, int]] = {}
        self._packs_known: set[str] = set()
        self._indexes_loaded = False
        self._index_lock = threading.Lock()

    @classmethod
    def for_project(cls, agent_dir: Path, folder: Path) -> CheckpointStore:
        return cls(agent_dir / "checkpoints" / project_key(folder))

    # -------------------------------------------------------------- contents

    def _load_indexes(self) -> None:
        """Read the index of every pack not known yet (another process may have added some)."""
        try:
            names = [e.name for e in os.scandir(self.packs) if e.name.endswith(INDEX_SUFFIX)]
        except OSError:
            return
        for name in names:
            pack = name[: -len(INDEX_SUFFIX)]
            if pack in self._packs_known:
                continue
            try:
                _head, rows = read_chunked_json(zlib.decompress((self.packs / name).read_bytes()).decode("utf-8"))
            except (OSError, ValueError, UnicodeDecodeError, zlib.error):
                continue
            with self._index_lock:
                self._packs_known.add(pack)
                for digest, offset, length in rows:
                    self._index.setdefault(digest, (pack, offset, length))

    def _ensure_index(self) -> None:
        if not self._indexes_loaded:
            self._load_indexes()
            self._indexes_loaded = True

    def has_object(self, digest: str) -> bool:
        self._ensure_index()
        return digest in self._index

    def pack_writer(self) -> PackWriter:
        self._ensure_index()
        return PackWriter(self)

    def _add_pack(self, pack: str, entries: dict[str, tuple[int, int]]) -> None:
        with self._index_lock:
            self._packs_known.add(pack)
            for digest, (offset, length) in entries.items():
                self._index.setdefault(digest, (pack, offset, length))

    def read_object(self, digest: str) -> bytes:
        self._ensure_index()
        where = self._index.get(digest)
        if where is None:
            self._load_indexes()
            where = self._index.get(digest)
        if where is None:
            raise DamagedCopy(f"stored copy {digest[:12]} is missing")
        pack, offset, length = where
        with open(self.packs / f"{pack}{PACK_SUFFIX}", "rb") as handle:
            handle.seek(offset)
            data = handle.read(length)
        if digest_of(data) != digest:
            raise DamagedCopy(f"stored copy {digest[:12]} is damaged")
        return data

    # -------------------------------------------------------------- manifests

    def _manifest_path(self, checkpoint_id: str) -> Path:
        if not checkpoint_id or "/" in checkpoint_id or checkpoint_id.startswith("."):
            raise CheckpointMissing(f"Unknown checkpoint: {checkpoint_id}")
        return self.manifests / f"{checkpoint_id}{MANIFEST_SUFFIX}"

    def save_manifest(self, manifest: Manifest) -> None:
        self.manifests.mkdir(parents=True, exist_ok=True)
        target = self._manifest_path(manifest.checkpoint_id)
        temp = target.with_name(target.name + f".{os.getpid()}.tmp")
        temp.write_bytes(manifest.encode())
        os.replace(temp, target)

    def load_manifest(self, checkpoint_id: str) -> Manifest:
        try:
            raw = self._manifest_path(checkpoint_id).read_bytes()
        except FileNotFoundError:
            raise CheckpointMissing(f"Checkpoint {checkpoint_id} is no longer stored") from None
        try:
            return Manifest.decode(raw)
        except (ValueError, KeyError, TypeError, IndexError, zlib.error) as exc:
            raise CheckpointMissing(f"Checkpoint {checkpoint_id} is unreadable: {exc}") from exc

    def has_manifest(self, checkpoint_id: str) -> bool:
        try:
            return self._manifest_path(checkpoint_id).exists()
        except CheckpointMissing:
            return False

    def newest_manifest(self) -> Manifest | None:
        """The most recently written checkpoint (seeds the stat cache of a new process)."""
        try:
            candidates = [e for e in os.scandir(self.manifests) if e.name.endswith(MANIFEST_SUFFIX)]
        except OSError:
            return None
        for entry in sorted(candidates, key=lambda e: e.stat().st_mtime_ns, reverse=True):
            with contextlib.suppress(CheckpointMissing, OSError):
                return self.load_manifest(entry.name[: -len(MANIFEST_SUFFIX)])
        return None

    # -------------------------------------------------------------- pruning

    def prune(self, keep_days: float, now: float | None = None, *, force: bool = False) -> int:
        """Remove checkpoints older than `keep_days` and the copies no other checkpoint uses.

        Runs at most once a day per store unless `force`; returns how many checkpoints went."""
        now = time.time() if now is None else now
        marker = self.root / PRUNE_MARKER
        with file_lock(self.root / "prune"):
            if not force:
                with contextlib.suppress(OSError):
                    if now - marker.stat().st_mtime < PRUNE_INTERVAL_S:
                        return 0
            removed = 0
            kept: list[str] = []
            cutoff = now - keep_days * 86400
            try:
                entries = [e for e in os.scandir(self.manifests) if e.name.endswith(MANIFEST_SUFFIX)]
            except OSError:
                entries = []
            for entry in entries:
                if entry.stat().st_mtime < cutoff:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                        removed += 1
                else:
                    kept.append(entry.name[: -len(MANIFEST_SUFFIX)])
            if removed:
                self._remove_unused_objects(kept)
            self.root.mkdir(parents=True, exist_ok=True)
            marker.touch()
            return removed

    def _remove_unused_objects(self, kept: list[str]) -> None:
        """Drop packs none of whose contents a kept checkpoint uses; repack the partly used ones."""
        used: set[str] = set()
        for checkpoint_id in kept:
            try:
                used.update(f.digest for f in self.load_manifest(checkpoint_id).files.values())
            except CheckpointMissing:
                # An unreadable manifest might still name anything: keep every copy this time.
                return
        self._load_indexes()
        by_pack: dict[str, list[str]] = {}
        for digest, (pack, _offset, _length) in list(self._index.items()):
            by_pack.setdefault(pack, []).append(digest)
        for pack, digests in by_pack.items():
            wanted = [d for d in digests if d in used]
            if len(wanted) == len(digests):
                continue
            if wanted:
                writer = PackWriter(self)
                for digest in wanted:
                    with contextlib.suppress(OSError, DamagedCopy):
                        writer.add(digest, self.read_object(digest), force=True)
                writer.finish()
            with self._index_lock:
                for digest in digests:
                    if self._index.get(digest, ("",))[0] == pack:
                        del self._index[digest]
                self._packs_known.discard(pack)
            for suffix in (INDEX_SUFFIX, PACK_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(self.packs / f"{pack}{suffix}")


class PackWriter:
    """The contents one scan stores, appended to a new pack; `finish` makes them visible."""

    def __init__(self, store: CheckpointStore) -> None:
        self._store = store
        self._pack = uuid7()
        self._entries: dict[str, tuple[int, int]] = {}
        self._offset = 0
        self._handle: BinaryIO | None = None

    def add(self, digest: str, data: bytes, *, force: bool = False) -> None:
        if digest in self._entries or (not force and digest in self._store._index):
            return
        if self._handle is None:
            self._store.packs.mkdir(parents=True, exist_ok=True)
            self._handle = open(self._store.packs / f"{self._pack}{PACK_SUFFIX}.tmp", "wb")  # noqa: SIM115
        self._handle.write(data)
        self._entries[digest] = (self._offset, len(data))
        self._offset += len(data)

    def finish(self) -> None:
        if self._handle is None:
            return
        self._handle.close()
        packs = self._store.packs
        os.replace(packs / f"{self._pack}{PACK_SUFFIX}.tmp", packs / f"{self._pack}{PACK_SUFFIX}")
        index = packs / f"{self._pack}{INDEX_SUFFIX}"
        temp = index.with_name(index.name + ".tmp")
        rows: list[list[object]] = [[digest, offset, length] for digest, (offset, length) in self._entries.items()]
        temp.write_bytes(zlib.compress(chunked_json({"version": MANIFEST_VERSION}, rows).encode("utf-8"), 1))
        os.replace(temp, index)
        self._store._add_pack(self._pack, self._entries)
        self._handle = None

    def abandon(self) -> None:
        if self._handle is not None:
            self._handle.close()
            with contextlib.suppress(OSError):
                os.unlink(self._store.packs / f"{self._pack}{PACK_SUFFIX}.tmp")
            self._handle = None
