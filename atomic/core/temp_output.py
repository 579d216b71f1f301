"""The private per-session temp tree for persisted command output.

Layout: `<tempfile.gettempdir()>/atomic-<uid>/<session-id>/<file>`. The temp root is shared with
every user on the machine, so each folder is created one level at a time with mode 0700 and then
checked with lstat: a symlink, a non-folder or a folder owned by someone else means another user
may control it, and we fail closed (return None: the output simply is not persisted). Our own
folder with loose permissions is tightened to 0700. Files are created 0600, without following
symlinks, and capped at 64 MiB each. Old session trees are swept after 30 days.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Collection
from pathlib import Path

MAX_PERSISTED_BYTES = 64 * 1024 * 1024
RETENTION_SECONDS = 30 * 24 * 60 * 60
_NO_SESSION = "no-session"
_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")


def sanitize_component(name: str, fallback: str = "unnamed") -> str:
    """A single safe path component: only [A-Za-z0-9._-], never `.`/`..`, at most 128 chars."""
    cleaned = _UNSAFE_NAME_CHARS.sub("_", name)[:128].strip(".")
    return cleaned or fallback


def temp_root() -> Path:
    return Path(tempfile.gettempdir()) / f"atomic-{os.getuid()}"


def _ensure_private_dir(path: Path) -> bool:
    """Create `path` (one level) as 0700 if missing; True only if it is now a safe folder of ours."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return False
    if stat.S_IMODE(info.st_mode) & 0o077:
        try:
            os.chmod(path, 0o700, follow_symlinks=False)
        except (OSError, NotImplementedError):
            return False
    return True


def ensure_temp_root() -> Path | None:
    root = temp_root()
    return root if _ensure_private_dir(root) else None


def session_temp_dir(session_id: str | None) -> Path | None:
    """The checked folder for one session's temp files, or None when it cannot be made safe."""
    root = ensure_temp_root()
    if root is None:
        return None
    folder = root / sanitize_component(session_id or _NO_SESSION, _NO_SESSION)
    return folder if _ensure_private_dir(folder) else None


def cap_notice(cap: int) -> str:
    return f"\n[Output truncated: persisted-output cap of {cap} bytes reached]\n"


class SpillFile:
    """A 0600 file in the session temp tree, written incrementally while output streams.

    Writes past the cap are dropped; the first one that hits it appends a notice instead.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self.bytes_written = 0
        self.capped = False

    @classmethod
    def create(cls, session_id: str | None, file_name: str) -> SpillFile | None:
        """Open `<session dir>/<file_name>` for writing, or None if the tree or file is refused."""
        folder = session_temp_dir(session_id)
        if folder is None:
            return None
        path = folder / sanitize_component(file_name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, 0o600)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
                os.close(fd)
                return None
            os.fchmod(fd, 0o600)
        except OSError:
            os.close(fd)
            return None
        return cls(path, fd)

    def write(self, text: str) -> None:
        if self._fd is None or self.capped or not text:
            return
        data = text.encode("utf-8")
        # Read the module constant at call time so tests (and callers) can lower it.
        cap = MAX_PERSISTED_BYTES
        room = max(cap - self.bytes_written, 0)
        notice = b""
        if len(data) > room:
            # Drop a character cut in half at the cap rather than write a broken one.
            data = data[:room].decode("utf-8", errors="ignore").encode("utf-8")
            notice = cap_notice(cap).encode("utf-8")
            self.capped = True
        try:
            self._write_all(data + notice)
        except OSError:
            self.close()
            return
        self.bytes_written += len(data)

    def _write_all(self, data: bytes) -> None:
        view = memoryview(data)
        while view and self._fd is not None:
            written = os.write(self._fd, view)
            view = view[written:]

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    def __enter__(self) -> SpillFile:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _newest_mtime(folder: Path) -> float:
    """The newest modification time of the folder or anything inside it, never following symlinks."""
    newest = os.lstat(folder).st_mtime
    for dir_path, dir_names, file_names in os.walk(folder, followlinks=False):
        for name in [*dir_names, *file_names]:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(dir_path, name)).st_mtime)
    return newest


def sweep_stale_session_dirs(
    live_session_ids: Collection[str] = (),
    *,
    max_age_seconds: float = RETENTION_SECONDS,
    now: float | None = None,
) -> list[Path]:
    """Delete session trees whose newest file is older than the retention; returns what was removed.

    Live sessions are never touched, nor is anything that is not a real folder of ours.
    """
    root = temp_root()
    try:
        root_info = os.lstat(root)
    except OSError:
        return []
    if not stat.S_ISDIR(root_info.st_mode) or stat.S_ISLNK(root_info.st_mode) or root_info.st_uid != os.getuid():
        return []
    live = {sanitize_component(s, _NO_SESSION) for s in live_session_ids}
    cutoff = (time.time() if now is None else now) - max_age_seconds
    removed: list[Path] = []
    for entry in os.scandir(root):
        if entry.name in live or entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            continue
        folder = Path(entry.path)
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid() or _newest_mtime(folder) >= cutoff:
                continue
            # rmtree removes symlinks inside the tree as links, never descending through them.
            shutil.rmtree(folder)
            removed.append(folder)
        except OSError:
            continue
    return removed
