"""Wrapping one shell command in the sandbox: the argv to start and what to undo when it ends."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from atomic.core.sandbox.bubblewrap import BubblewrapCommand
from atomic.core.sandbox.policy import SandboxPolicy
from atomic.core.sandbox.probe import Support
from atomic.core.sandbox.seatbelt import seatbelt_argv
from atomic.core.sandbox.seccomp import no_unix_sockets_filter


@dataclass
class Launch:
    """The program to start in place of the shell, the descriptors it inherits, and its clean-up."""

    argv: list[str | bytes]
    pass_fds: tuple[int, ...] = ()
    _to_close: list[int] = field(default_factory=list)
    _bubblewrap: BubblewrapCommand | None = None

    def started(self) -> None:
        """The process has its copies of the descriptors: ours can go."""
        for fd in self._to_close:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._to_close = []

    def finished(self) -> None:
        self.started()
        if self._bubblewrap is not None:
            self._bubblewrap.release()
            self._bubblewrap = None


def _filter_fd(program: bytes) -> int:
    """A pipe's read end holding `program` (a few hundred bytes: far below a pipe's buffer)."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end


def sandboxed_launch(policy: SandboxPolicy, support: Support, command: Sequence[str | bytes]) -> Launch:
    """`command` (the shell and its arguments) under `policy`, with the launcher `support` found."""
    assert support.launcher is not None and policy.active
    if support.platform == "darwin":
        return Launch(seatbelt_argv(policy, list(command)))
    fds: list[int] = []
    program = None if policy.network else no_unix_sockets_filter()
    if program is not None:
        fds.append(_filter_fd(program))
    wrapped = BubblewrapCommand(support.launcher, policy, command, fds[0] if fds else None)
    return Launch(wrapped.argv, tuple(fds), list(fds), wrapped)
