"""The checkpoint store of one project folder: content-addressed file copies and manifests.

It lives under the agent dir, `checkpoints/<folder name>-<hash of the folder path>/`, never in the
project, and never touches the project's own repository:

    objects/ab/cdef...   one file's bytes (or a symlink's target), named by its BLAKE2b digest
    manifests/<id>.ckpt  one checkpoint: every covered path with digest, mode and the stat
                         fields that let the next checkpoint skip unchanged files (zlib'd JSON)

Objects are written to a temp file and renamed, so several Atomic processes can share a store.
Nothing is fsynced (a checkpoint is a convenience, not the user's data); a copy damaged by a crash
is caught by its digest when it is read back.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from atomic.core.atomic_io import file_lock

MANIFEST_VERSION = 1
MANIFEST_SUFFIX = ".ckpt"
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
        files = [[p, f.digest, f.mode, f.size, f.mtime_ns, f.ctime_ns, f.ino] for p, f in self.files.items()]
        body = {
            "version": MANIFEST_VERSION,
            "id": self.checkpoint_id,
            "created": self.created,
            "scannedNs": self.scanned_ns,
            "files": files,
            "skipped": [[p, r] for p, r in self.skipped.items()],
        }
        return zlib.compress(json.dumps(body, separators=(",", ":")).encode("utf-8"), 1)

    @classmethod
    def decode(cls, raw: bytes) -> Manifest:
        body = json.loads(zlib.decompress(raw))
        files = {row[0]: FileState(*row[1:7]) for row in body["files"]}
        return cls(
            checkpoint_id=str(body["id"]),
            created=str(body["created"]),
            scanned_ns=int(body["scannedNs"]),
            files=files,
            skipped={str(p): str(r) for p, r in body.get("skipped", [])},
        )


def project_key(folder: Path) -> str:
    resolved = str(folder.resolve())
    name = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in (Path(resolved).name or "root"))
    return f"{name[:40]}-{hashlib.sha256(resolved.encode('utf-8', 'surrogateescape')).hexdigest()[:16]}"


class CheckpointStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.objects = root / "objects"
        self.manifests = root / "manifests"
        self._made_dirs: set[str] = set()

    @classmethod
    def for_project(cls, agent_dir: Path, folder: Path) -> CheckpointStore:
        return cls(agent_dir / "checkpoints" / project_key(folder))

    # -------------------------------------------------------------- objects

    def _object_path(self, digest: str) -> str:
        return os.path.join(self.objects, digest[:2], digest[2:])

    def has_object(self, digest: str) -> bool:
        return os.path.exists(self._object_path(digest))

    def put_object(self, digest: str, data: bytes) -> None:
        target = self._object_path(digest)
        if os.path.exists(target):
            return
        folder = os.path.dirname(target)
        if folder not in self._made_dirs:
            os.makedirs(folder, exist_ok=True)
            self._made_dirs.add(folder)
        temp = f"{target}.{os.getpid()}.{id(data)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temp, target)

    def read_object(self, digest: str) -> bytes:
        with open(self._object_path(digest), "rb") as handle:
            data = handle.read()
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
        used: set[str] = set()
        for checkpoint_id in kept:
            try:
                used.update(f.digest for f in self.load_manifest(checkpoint_id).files.values())
            except CheckpointMissing:
                # An unreadable manifest might still name anything: keep every copy this time.
                return
        try:
            folders = list(os.scandir(self.objects))
        except OSError:
            return
        for folder in folders:
            with contextlib.suppress(OSError):
                for entry in os.scandir(folder.path):
                    if folder.name + entry.name not in used and not entry.name.endswith(".tmp"):
                        os.unlink(entry.path)
