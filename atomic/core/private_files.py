"""Atomic's own folders and files are the user's alone: folders 0700, files 0600.

Sessions, logs and exports hold what the model read and ran (file contents, command lines, keys a
command printed), so nobody else on the machine may read them, from the first file on."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

DIR_MODE = 0o700
FILE_MODE = 0o600


def ensure_private_dir(path: Path) -> None:
    """Create `path` and any missing parents 0700. Folders that already exist are left as they are."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            continue
        # mkdir's mode is masked by the umask; 0700 must hold whatever the umask says.
        os.chmod(folder, DIR_MODE)


def open_private_append(path: Path) -> IO[str]:
    """`path` opened for appending text, created 0600 (an older, looser file is tightened)."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    except OSError:
        pass  # someone else's file: the open still worked
    return os.fdopen(fd, "a", encoding="utf-8", errors="replace")
