"""How session files reach the disk, so that a file is valid from its first byte and an append that
returned is there after a crash.

- `create_whole`: a new file's lines (the header and the entries so far) go to a temp file beside it,
  which is fsynced and renamed to its name; then the folder is fsynced so the name itself survives.
  A crash leaves either no file or the complete one, never an empty or headless file.
- `append_lines`: later entries are whole lines added with one `write` on an O_APPEND descriptor,
  fsynced before the call returns (callers acknowledge an entry only after that).
- `keep_backup`: a damaged file's bytes are copied beside it before it is rewritten.

Files are created 0600 and missing folders 0700, as the agent's other private files (private_files.py).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from atomic.core.private_files import FILE_MODE, ensure_private_dir


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def fsync_folder(folder: Path) -> None:
    """Make a rename or a new name in `folder` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def create_whole(path: Path, data: bytes) -> None:
    """Write `data` as the new file `path`: temp file, fsync, rename, fsync of the folder."""
    folder = path.parent
    ensure_private_dir(folder)
    fd, temp = tempfile.mkstemp(dir=str(folder), prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, FILE_MODE)
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    os.close(fd)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_folder(folder)


def append_lines(path: Path, data: bytes) -> None:
    """Append whole lines to `path` in one write and fsync them before returning."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def keep_backup(path: Path, data: bytes, stamp: str) -> Path:
    """Save `data` (a damaged file's bytes) as `<name>.<stamp>.damaged` beside `path`; returns its path.

    The name does not end in `.jsonl`, so listings never offer the backup as a session.
    """
    backup = path.with_name(f"{path.name}.{stamp}.damaged")
    counter = 1
    while backup.exists():
        counter += 1
        backup = path.with_name(f"{path.name}.{stamp}-{counter}.damaged")
    create_whole(backup, data)
    return backup
