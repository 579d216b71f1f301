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

from collections.abc import Sequence
from pathlib import Path

from atomic.core.sandbox.placeholders import LINGERING, PLACEHOLDERS
from atomic.core.sandbox.policy import SandboxPolicy


def _depth(path: Path) -> int:
    return len(path.parts)


def _inside_any(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


class BubblewrapCommand:
    """The argv for one command, and the placeholders it holds until `release()`.

    When it holds placeholders (placeholders.py), bubblewrap also reports its child's pid
    (`--info-fd`) and holds the child before exec (`--block-fd`) until `Launch.ready` has read which
    mount namespace the command runs in: its placeholders are released only once that is empty.
    """

    def __init__(self, bwrap: str, policy: SandboxPolicy, command: Sequence[str | bytes], seccomp_fd: int | None):
        self.held: list[Path] = []
        self.namespace: str | None = None
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
            held = PLACEHOLDERS.hold(protected)
            if held is None:
                continue  # its folder is missing (no .git): nothing there to protect
            if held:
                self.held.append(protected)
            self.argv += ["--ro-bind", str(protected), str(protected)]
        if not policy.network:
            self.argv.append("--unshare-net")
            if seccomp_fd is not None:
                self.argv += ["--seccomp", str(seccomp_fd)]
        self._tail: list[str | bytes] = ["--chdir", str(policy.cwd), "--", *command]

    @property
    def full_argv(self) -> list[str | bytes]:
        return [*self.argv, *self._tail]

    def watch_with(self, info_fd: int, block_fd: int) -> None:
        self.argv += ["--info-fd", str(info_fd), "--block-fd", str(block_fd)]

    def release(self) -> None:
        """The command has ended: its placeholders go once nothing of it is left running."""
        held, self.held = self.held, []
        if not held:
            return

        def release_all() -> None:
            for path in held:
                PLACEHOLDERS.release(path)

        if self.namespace is None:
            release_all()  # the command was never let run: nothing can use them
        elif self.namespace:
            LINGERING.release_when_empty(self.namespace, release_all)
        # else: where the command ran is unknown, so they stay (empty folders) rather than be lifted early
