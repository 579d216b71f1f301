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
from atomic.core.checkpoints.store import CheckpointStore, FileState, Manifest, PackWriter, digest_of
from atomic.core.ids import iso_now, uuid7

RACY_MARGIN_NS = 2_000_000_000
# A folder with more covered files than this (a home folder, a whole disk) gets no checkpoints:
# scanning it before every prompt would cost more than it could give back.
MAX_FILES = 250_000


class TooManyFiles(Exception):
    pass


@dataclass(frozen=True, slots=True)
class _Cached:
    state: FileState
    trusted: bool
    stored: bool  # its copy is in the store (the scan that saw it kept its files)


def read_content(path: str, info: os.stat_result) -> bytes:
    """A file's bytes, or a symlink's target as bytes."""
    if stat.S_ISLNK(info.st_mode):
        return os.fsencode(os.readlink(path))
    with open(path, "rb") as handle:
        return handle.read()


class Snapshotter:
    """Scans one project folder into manifests; one scan at a time (a lock), any thread."""

    def __init__(
        self, folder: str, store: CheckpointStore, max_file_bytes: int, keep_out: tuple[str, ...] = ()
    ) -> None:
        # Walked by its real path, so that the folders kept out compare by their real paths too.
        self.folder = os.path.realpath(folder)
        self.store = store
        self.max_file_bytes = max_file_bytes
        # Held by a scan, and by a restore around its undo scan and its writes, so that no scan
        # ever sees a half-restored folder (re-entrant: the restore's own scan takes it again).
        self.lock = threading.RLock()
        self._cache: dict[str, _Cached] | None = None
        # Atomic's own files never belong to a checkpoint, even when the agent dir (sessions, the
        # store) lies inside the project, as it does for a session started in the home folder:
        # a restore must never delete or rewind a session file.
        self._excluded = frozenset(os.path.realpath(path) for path in (str(store.root), *keep_out))

    def _remember(self, manifest: Manifest) -> None:
        """Seed the cache from a saved checkpoint (its copies are all stored)."""
        limit = manifest.scanned_ns - RACY_MARGIN_NS
        self._cache = {p: _Cached(f, f.mtime_ns < limit, True) for p, f in manifest.files.items()}

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
        with self.lock:
            cache = self._seed_cache()
            scanned_ns = time.time_ns()
            trust_before = scanned_ns - RACY_MARGIN_NS
            manifest = Manifest(checkpoint_id=uuid7(), created=iso_now(), scanned_ns=scanned_ns)
            remembered: dict[str, _Cached] = {}
            limit = self.max_file_bytes
            writer = self.store.pack_writer() if keep else None
            try:
                self._walk(manifest, cache, remembered, writer, trust_before, limit)
                if writer is not None:
                    writer.finish()
            finally:
                if writer is not None:
                    writer.abandon()
            if keep and save:
                self.store.save_manifest(manifest)
            self._cache = remembered
            return manifest

    def _walk(
        self,
        manifest: Manifest,
        cache: dict[str, _Cached],
        remembered: dict[str, _Cached],
        writer: PackWriter | None,
        trust_before: int,
        limit: int,
    ) -> None:
        files = manifest.files
        keep = writer is not None
        seen = 0
        for found in walk(self.folder, self._excluded):
            seen += 1
            if seen > MAX_FILES:
                raise TooManyFiles(f"more than {MAX_FILES:,} files under {self.folder}: no checkpoints here")
            info = found.stat
            relative = found.relative
            if info.st_size > limit and not stat.S_ISLNK(info.st_mode):
                manifest.skipped[relative] = f"larger than {limit} bytes"
                continue
            cached = cache.get(relative)
            if cached is not None and cached.trusted and (cached.stored or not keep):
                old = cached.state
                if (
                    old.size == info.st_size
                    and old.mtime_ns == info.st_mtime_ns
                    and old.ctime_ns == info.st_ctime_ns
                    and old.ino == info.st_ino
                    and old.mode == info.st_mode
                ):
                    files[relative] = old
                    remembered[relative] = cached
                    continue
            try:
                data = read_content(found.path, info)
            except OSError as exc:
                manifest.skipped[relative] = f"unreadable: {exc.strerror or exc}"
                continue
            digest = digest_of(data)
            if writer is not None:
                writer.add(digest, data)
            state = FileState(digest, info.st_mode, len(data), info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
            files[relative] = state
            # A hash-only scan keeps knowing a copy is stored when the content did not change.
            stored = keep or (cached is not None and cached.stored and cached.state.digest == digest)
            remembered[relative] = _Cached(state, info.st_mtime_ns < trust_before, stored)
