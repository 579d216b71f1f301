"""Wrapping one shell command in the sandbox: the argv to start and what to undo when it ends."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from atomic.core.sandbox.bubblewrap import BubblewrapCommand
from atomic.core.sandbox.policy import SandboxPolicy
from atomic.core.sandbox.probe import Support
from atomic.core.sandbox.seatbelt import seatbelt_argv
from atomic.core.sandbox.seccomp import no_unix_sockets_filter

_CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)')
_READY_TIMEOUT_S = 10.0


@dataclass
class Launch:
    """The program to start in place of the shell, the descriptors it inherits, and its clean-up."""

    argv: list[str | bytes]
    pass_fds: tuple[int, ...] = ()
    # Descriptors only the launcher needs (closed here once it has started).
    _theirs: list[int] = field(default_factory=list)
    _bubblewrap: BubblewrapCommand | None = None
    # Ours, when bubblewrap reports its child and waits for a go (placeholders.py).
    _info_read: int | None = None
    _block_write: int | None = None

    def started(self) -> None:
        """The process has its copies of the descriptors: ours of theirs can go."""
        for fd in self._theirs:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._theirs = []

    async def ready(self) -> None:
        """When bubblewrap holds its child before exec: note the child's mount namespace, then let it run."""
        if self._info_read is None or self._block_write is None or self._bubblewrap is None:
            return
        # None: no child was made (bubblewrap failed), so nothing ran; "": unknown, which keeps the
        # placeholders for good rather than risk lifting them too early.
        namespace: str | None = ""
        try:
            pid = await asyncio.wait_for(_child_pid(self._info_read), _READY_TIMEOUT_S)
            if pid is None:
                namespace = None
            else:
                with contextlib.suppress(OSError):
                    namespace = os.readlink(f"/proc/{pid}/ns/mnt")
        except TimeoutError:
            pass
        self._bubblewrap.namespace = namespace
        with contextlib.suppress(OSError):
            os.write(self._block_write, b"g")
        with contextlib.suppress(OSError):
            os.close(self._block_write)
        self._block_write = None
        # The info pipe stays open until the end: bubblewrap may write more, and a closed pipe would
        # kill it with SIGPIPE.

    def _close_ours(self) -> None:
        for fd in (self._info_read, self._block_write):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._info_read = self._block_write = None

    def finished(self) -> None:
        self.started()
        self._close_ours()
        if self._bubblewrap is not None:
            self._bubblewrap.release()
            self._bubblewrap = None


async def _child_pid(fd: int) -> int | None:
    """Read bubblewrap's `--info-fd` JSON until it names the child (None: it ended first)."""
    loop = asyncio.get_running_loop()
    buffer = b""
    while True:
        chunk = await _read_when_readable(loop, fd)
        if not chunk:
            return None
        buffer += chunk
        match = _CHILD_PID.search(buffer)
        if match:
            return int(match.group(1))


async def _read_when_readable(loop: asyncio.AbstractEventLoop, fd: int) -> bytes:
    future: asyncio.Future[bytes] = loop.create_future()

    def on_readable() -> None:
        loop.remove_reader(fd)
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not future.done():
            future.set_result(data)

    loop.add_reader(fd, on_readable)
    try:
        return await future
    finally:
        loop.remove_reader(fd)


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
    theirs: list[int] = []
    program = None if policy.network else no_unix_sockets_filter()
    if program is not None:
        theirs.append(_filter_fd(program))
    wrapped = BubblewrapCommand(support.launcher, policy, command, theirs[0] if theirs else None)
    launch = Launch([], _bubblewrap=wrapped)
    if wrapped.held:
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        wrapped.watch_with(info_write, block_read)
        theirs += [info_write, block_read]
        launch._info_read, launch._block_write = info_read, block_write
    launch.argv = wrapped.full_argv
    launch.pass_fds = tuple(theirs)
    launch._theirs = theirs
    return launch
