"""Taking the state of a project's files: incremental, meant to run in a worker thread.

A file whose size, mtime, ctime, inode and mode equal those recorded by the previous scan is not
read again; its digest is reused. A stat match is trusted only for files last modified at least
`RACY_MARGIN_NS` before that scan began: a file changed again within the same timestamp tick
would otherwise look unchanged (git calls these "racily clean").
"""

from __future__ import annotations

import os
import stat
import threading
import time
from dataclasses import dataclass

from atomic.core.checkpoints.coverage import walk
from atomic.core.checkpoints.store import CheckpointStore, FileState, Manifest, digest_of
from atomic.core.ids import iso_now, uuid7

RACY_MARGIN_NS = 2_000_000_000


@dataclass(frozen=True, slots=True)
class _Cached:
    state: FileState
    trusted: bool


def read_content(path: str, info: os.stat_result) -> bytes:
    """A file's bytes, or a symlink's target as bytes."""
    if stat.S_ISLNK(info.st_mode):
        return os.fsencode(os.readlink(path))
    with open(path, "rb") as handle:
        return handle.read()


class Snapshotter:
    """Scans one project folder into manifests; one scan at a time (a lock), any thread."""

    def __init__(self, folder: str, store: CheckpointStore, max_file_bytes: int) -> None:
        self.folder = folder
        self.store = store
        self.max_file_bytes = max_file_bytes
        self._lock = threading.Lock()
        self._cache: dict[str, _Cached] | None = None
        self._excluded = frozenset({str(store.root.resolve()), str(store.root)})

    def _remember(self, manifest: Manifest) -> None:
        limit = manifest.scanned_ns - RACY_MARGIN_NS
        self._cache = {p: _Cached(f, f.mtime_ns < limit) for p, f in manifest.files.items()}

    def _seed_cache(self) -> dict[str, _Cached]:
        if self._cache is None:
            newest = self.store.newest_manifest()
            if newest is not None:
                self._remember(newest)
            else:
                self._cache = {}
        assert self._cache is not None
        return self._cache

    def scan(self, *, keep: bool, save: bool = True) -> Manifest:
        """The current state. With `keep`, every file's bytes are stored and (with `save`) the
        manifest saved: a checkpoint. Without, files are only hashed (to compare with one)."""
        with self._lock:
            cache = self._seed_cache()
            manifest = Manifest(checkpoint_id=uuid7(), created=iso_now(), scanned_ns=time.time_ns())
            limit = self.max_file_bytes
            store = self.store
            for found in walk(self.folder, self._excluded):
                info = found.stat
                if info.st_size > limit and not stat.S_ISLNK(info.st_mode):
                    manifest.skipped[found.relative] = f"larger than {limit} bytes"
                    continue
                cached = cache.get(found.relative)
                if cached is not None and cached.trusted:
                    old = cached.state
                    if (
                        old.size == info.st_size
                        and old.mtime_ns == info.st_mtime_ns
                        and old.ctime_ns == info.st_ctime_ns
                        and old.ino == info.st_ino
                        and old.mode == info.st_mode
                        and (not keep or store.has_object(old.digest))
                    ):
                        manifest.files[found.relative] = old
                        continue
                try:
                    data = read_content(found.path, info)
                except OSError as exc:
                    manifest.skipped[found.relative] = f"unreadable: {exc.strerror or exc}"
                    continue
                digest = digest_of(data)
                if keep:
                    store.put_object(digest, data)
                manifest.files[found.relative] = FileState(
                    digest, info.st_mode, len(data), info.st_mtime_ns, info.st_ctime_ns, info.st_ino
                )
            if keep and save:
                store.save_manifest(manifest)
            self._remember(manifest)
            return manifest

    def forget_cache(self) -> None:
        """After a restore rewrote files: their stat changed anyway, but start clean."""
        with self._lock:
            self._cache = None
