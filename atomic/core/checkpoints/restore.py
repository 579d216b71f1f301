"""Putting a project's files back as a checkpoint recorded them.

Given the checkpoint and the current state (a checkpoint taken just before, so the restore can be
undone): files created since are deleted first, then folders left empty by the deletions are
removed, then every file that differs is written to a temp file beside it and renamed over it
(its mode set before the rename), so no file is ever half-written. A path that cannot be written
or deleted is reported with the reason and the rest goes on. Paths skipped by either state
(too big, unreadable) are left alone; ignored paths are in neither state and never touched.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field

from atomic.core.checkpoints.store import CheckpointStore, DamagedCopy, FileState, Manifest


@dataclass
class RestoreOutcome:
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _differs(old: FileState, new: FileState) -> bool:
    return old.digest != new.digest or old.mode != new.mode


def _remove_empty_parents(root: str, relative: str) -> None:
    parent = os.path.dirname(relative)
    while parent:
        try:
            os.rmdir(os.path.join(root, parent))
        except OSError:
            return
        parent = os.path.dirname(parent)


class _LinkInTheWay(Exception):
    pass


def _clear_way(root: str, relative: str) -> None:
    """Make the parent folders of `relative` exist, refusing to go through a symbolic link: a run
    that swapped a folder for a link to elsewhere (and hid the link from checkpoints with an
    ignore rule) must not get a restore to write outside the project."""
    current = root
    for part in relative.split("/")[:-1]:
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                raise _LinkInTheWay(os.path.relpath(current, root))
        except FileNotFoundError:
            os.mkdir(current)


def _write(root: str, relative: str, data: bytes, mode: int) -> None:
    target = os.path.join(root, relative)
    folder, name = os.path.split(target)
    temp = os.path.join(folder, f".{name}.atomic-restore-{os.getpid()}")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    try:
        if stat.S_ISLNK(mode):
            os.symlink(os.fsdecode(data), temp)
        else:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fchmod(fd, stat.S_IMODE(mode))
            finally:
                os.close(fd)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def plan(target: Manifest, current: Manifest) -> tuple[list[str], list[str]]:
    """(paths to write, paths to delete) that turn `current` into `target`."""
    hands_off = target.skipped.keys() | current.skipped.keys()
    writes = [
        path
        for path, wanted in target.files.items()
        if path not in hands_off and (path not in current.files or _differs(current.files[path], wanted))
    ]
    deletes = [path for path in current.files if path not in target.files and path not in hands_off]
    return sorted(writes), sorted(deletes)


def restore(root: str, store: CheckpointStore, target: Manifest, current: Manifest) -> RestoreOutcome:
    outcome = RestoreOutcome()
    writes, deletes = plan(target, current)
    for relative in deletes:
        try:
            os.unlink(os.path.join(root, relative))
        except FileNotFoundError:
            pass
        except OSError as exc:
            outcome.skipped.append((relative, f"cannot delete: {_reason(exc)}"))
            continue
        outcome.deleted.append(relative)
        _remove_empty_parents(root, relative)
    for relative in writes:
        wanted = target.files[relative]
        try:
            data = store.read_object(wanted.digest)
        except (OSError, DamagedCopy) as exc:
            reason = str(exc) if isinstance(exc, DamagedCopy) else f"stored copy unreadable: {_reason(exc)}"
            outcome.skipped.append((relative, reason))
            continue
        try:
            _clear_way(root, relative)
            _write(root, relative, data, wanted.mode)
        except _LinkInTheWay as exc:
            outcome.skipped.append((relative, f"not written: {exc} is a symbolic link"))
            continue
        except OSError as exc:
            outcome.skipped.append((relative, f"cannot write: {_reason(exc)}"))
            continue
        outcome.restored.append(relative)
    return outcome
