"""Empty stand-ins for protected paths that do not exist yet, kept as long as a sandbox may use them.

A mount needs something to mount on: to keep a command from *creating* `.mcp.json` or `.atomic/`, an
empty folder is put there and bound read-only in the command's sandbox (a folder even for a file's
name: git ignores empty folders, so `git add -A` inside cannot pick it up).

Removing it while a background process of that command still runs (`(sleep 9; echo x > .mcp.json) &`)
would lift the rule for that process: its mount on the removed folder goes with it. So a finished
command's placeholders are released only once no process is left in its mount namespace (which no
process inside can leave: it has no capabilities), and removed when the last user is gone, if still
empty. Counted per Atomic process, because tool calls run concurrently.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

_RECHECK_SECONDS = 0.5


class Placeholders:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[Path, int] = {}

    def hold(self, path: Path) -> bool | None:
        """Make `path` exist. True: a placeholder is held (release it later); False: the path was
        there already; None: it cannot exist (its folder is missing)."""
        with self._lock:
            if path in self._users:
                self._users[path] += 1
                return True
            if os.path.lexists(path):
                return False
            if not path.parent.is_dir():
                return None
            try:
                path.mkdir()
            except OSError:
                return False if os.path.lexists(path) else None
            self._users[path] = 1
            return True

    def release(self, path: Path) -> None:
        with self._lock:
            count = self._users.get(path)
            if count is None:
                return
            if count > 1:
                self._users[path] = count - 1
                return
            del self._users[path]
            with contextlib.suppress(OSError):
                path.rmdir()  # fails, and so keeps it, when something was put inside


PLACEHOLDERS = Placeholders()


def namespace_in_use(namespace: str) -> bool:
    """Whether any process still lives in the mount namespace `namespace` (`mnt:[4026532...]`)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # cannot tell: keep the placeholders
    for entry in entries:
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/ns/mnt") == namespace:
                    return True
            except OSError:
                continue
    return False


class _Lingering:
    """Releases what finished commands held once their sandboxes are empty (checked twice a second)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: list[tuple[str, Callable[[], None]]] = []
        self._running = False

    def release_when_empty(self, namespace: str, release: Callable[[], None]) -> None:
        if not namespace_in_use(namespace):
            release()
            return
        with self._lock:
            self._waiting.append((namespace, release))
            if not self._running:
                self._running = True
                threading.Thread(target=self._watch, name="atomic-sandbox-placeholders", daemon=True).start()

    def _watch(self) -> None:
        while True:
            time.sleep(_RECHECK_SECONDS)
            with self._lock:
                still = [(ns, release) for ns, release in self._waiting if namespace_in_use(ns)]
                done = [release for item in self._waiting if item not in still for release in (item[1],)]
                self._waiting = still
                if not still:
                    self._running = False
            for release in done:
                release()
            if not still:
                return


LINGERING = _Lingering()
