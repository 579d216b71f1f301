"""The Linux launcher: a bubblewrap command line built from a SandboxPolicy.

Atomic's own process is never forked into the sandbox: bubblewrap (a small C program) is started the
way any command is, sets up the namespaces and mounts, and execs the shell (docs/security.md has the
figures that chose it over a Landlock helper).

The file rules are mounts in a new mount namespace: the whole tree read-only, the writable roots bound
writable on top, the protected paths bound read-only on top of those. A new user namespace with every
capability dropped keeps the command from undoing them (as root too) and from nesting namespaces.
Without network the command gets a new network namespace (bubblewrap brings up `lo`) and the seccomp
filter of seccomp.py.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

from atomic.core.sandbox.policy import SandboxPolicy


def _depth(path: Path) -> int:
    return len(path.parts)


def _inside_any(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


class Placeholders:
    """Empty stand-ins for protected paths that do not exist yet.

    A mount needs something to mount on: to keep a command from *creating* `.mcp.json` or `.atomic/`,
    an empty folder is put there for the command's lifetime and bound read-only (a folder even for a
    file's name: git ignores empty folders, so `git add -A` in the command cannot pick it up). It is
    removed when the last command using it ends, if it is still empty. Counted per process, because
    tool calls run concurrently.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._users: dict[Path, int] = {}

    def hold(self, path: Path) -> bool:
        """Make `path` exist; True when it exists now (made here or already there)."""
        with self._lock:
            if path in self._users:
                self._users[path] += 1
                return True
            if os.path.lexists(path):
                return True
            if not path.parent.is_dir():
                return False
            try:
                path.mkdir()
            except OSError:
                return os.path.lexists(path)
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


class BubblewrapCommand:
    """The argv for one command, and the placeholders it holds until `release()`."""

    def __init__(self, bwrap: str, policy: SandboxPolicy, command: Sequence[str | bytes], seccomp_fd: int | None):
        self.held: list[Path] = []
        self.argv: list[str | bytes] = [
            bwrap,
            "--unshare-user",
            "--disable-userns",
            "--cap-drop",
            "ALL",
            "--die-with-parent",
            "--ro-bind",
            "/",
            "/",
            "--dev-bind",
            "/dev",
            "/dev",
            "--bind",
            "/proc",
            "/proc",
        ]
        roots = sorted(policy.writable_roots, key=_depth)
        for root in roots:
            self.argv += ["--bind", str(root), str(root)]
        git = policy.cwd / ".git"
        if git.is_dir() and not git.is_symlink() and _inside_any(git, roots):
            # A mount point cannot be renamed: `mv .git elsewhere && mkdir .git` would escape the rules below.
            self.argv += ["--bind", str(git), str(git)]
        for protected in sorted(policy.protected, key=_depth):
            if not _inside_any(protected, roots):
                continue  # read-only already
            if not PLACEHOLDERS.hold(protected):
                continue  # its folder is missing (no .git): nothing there to protect
            self.held.append(protected)
            self.argv += ["--ro-bind", str(protected), str(protected)]
        if not policy.network:
            self.argv.append("--unshare-net")
            if seccomp_fd is not None:
                self.argv += ["--seccomp", str(seccomp_fd)]
        self.argv += ["--chdir", str(policy.cwd), "--", *command]

    def release(self) -> None:
        for path in self.held:
            PLACEHOLDERS.release(path)
        self.held = []
