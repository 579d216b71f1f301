"""Back up a session file before a compaction entry is appended to it."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

_CHUNK = 1 << 20


def backup_timestamp(moment: datetime) -> str:
    """ISO time in UTC with ':' and '.' turned into '-', e.g. 2026-06-06T00-00-00-000Z."""
    utc = moment.astimezone(UTC)
    iso = utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
    return iso.replace(":", "-").replace(".", "-")


def backup_path_for(path: Path, moment: datetime) -> Path:
    return path.with_name(f"{path.name}.{backup_timestamp(moment)}.compact.bak")


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the file itself is already synced
    finally:
        os.close(fd)


def backup_session_file(path: Path, *, now: datetime | None = None) -> Path:
    """Copy `path` to `<path>.<time>.compact.bak` beside it (mode 0600, fsynced) and return it.

    The backup is created exclusively: two compactions in the same millisecond get consecutive
    millisecond stamps instead of overwriting each other.
    """
    moment = now or datetime.now(UTC)
    while True:
        target = backup_path_for(path, moment)
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            moment += timedelta(milliseconds=1)
    try:
        os.fchmod(fd, 0o600)  # os.open applies the umask; the backup mode must be exactly 0600
        with open(path, "rb") as source, os.fdopen(fd, "wb") as sink:
            fd = -1
            while chunk := source.read(_CHUNK):
                sink.write(chunk)
            sink.flush()
            os.fsync(sink.fileno())
    except BaseException:
        if fd >= 0:
            os.close(fd)
        target.unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)
    return target
