"""Running one shell command in its own process group, streaming its output.

Used by the bash tool and by direct "run this now" bash requests. The command runs in a new
session (so a new process group): on cancellation or timeout the whole group, including background
children such as `sleep 100 &`, is sent SIGTERM and, after a short grace, SIGKILL.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shutil
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from atomic.core.sandbox.launch import Launch

Channel = Literal["stdout", "stderr"]
OutputCallback = Callable[[Channel, str], None]
# Receives the same output with its colours kept (SGR sequences only), for display; see `keep_colours`.
DisplayCallback = Callable[[str], None]
# Wraps `[shell, "-c", script]` into the command that really starts (the sandbox's launcher).
Launcher = Callable[[list[str | bytes]], "Launch"]

# SIGTERM first so well-behaved programs can clean up; SIGKILL whatever is left after this grace, so an
# abort ends the whole group within ~100 ms.
KILL_GRACE_SECONDS = 0.05
_KILL_POLL_SECONDS = 0.005
# After the shell exits, background children may keep the pipes open indefinitely (`server &`);
# wait this long for the rest of the output before giving up on it.
PIPE_DRAIN_SECONDS = 1.0
_READ_SIZE = 64 * 1024

# CSI (`ESC [ ... final`), OSC (`ESC ] ... BEL|ESC \`), other two-byte escapes, and stray C0 controls
# except tab and newline (`\r` goes too: progress bars would otherwise garble the text).
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[@-Z\\-_]"
    r"|[\x00-\x08\x0b-\x1f\x7f]"
)
# An escape sequence that has started but not finished at the end of a chunk.
_INCOMPLETE_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*|[PX^_][^\x1b]*)?\Z")
_MAX_HELD_ESCAPE = 4096
# Select Graphic Rendition (colour, bold, underline): the one escape sequence shown, never interpreted.
_SGR = re.compile(r"\x1b\[[0-9;:]*m")
_CONTROL_BYTES = bytes(code for code in range(0x20) if code not in (0x09, 0x0A)) + b"\x7f"


class ShellError(Exception):
    """The command could not be started (bad working directory, missing shell)."""


@dataclass
class ShellResult:
    exit_code: int | None
    cancelled: bool = False
    timed_out: bool = False


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _kept_if_sgr(match: re.Match[str]) -> str:
    sequence = match.group()
    return sequence if _SGR.fullmatch(sequence) else ""


def keep_colours(text: str) -> str:
    """`text` with its SGR sequences kept and every other escape and control (but tab and newline)
    removed: `strip_ansi(keep_colours(t)) == strip_ansi(t)`, and no line is added or lost."""
    return _ANSI.sub(_kept_if_sgr, text)


class StreamSanitizer:
    """Incremental UTF-8 decoding plus escape-code removal that survives chunk boundaries."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._held = ""

    def feed(self, data: bytes, final: bool = False) -> str:
        text, clean = self._decode(data, final)
        return text if clean else strip_ansi(text)

    def feed_both(self, data: bytes, final: bool = False) -> tuple[str, str]:
        """(the text without escapes, the same text with its colours kept)."""
        text, clean = self._decode(data, final)
        if clean:
            return text, text
        coloured = keep_colours(text)
        return strip_ansi(coloured), coloured

    def _decode(self, data: bytes, final: bool) -> tuple[str, bool]:
        """The text decoded so far (an unfinished escape held back) and whether it is clean already."""
        if not self._held and len(data.translate(None, _CONTROL_BYTES)) == len(data):
            # Nothing to strip (no escape, no control byte but tab and newline): the common case,
            # checked in one C pass instead of running the escape regex over every character.
            return self._decoder.decode(data, final), True
        text = self._held + self._decoder.decode(data, final)
        self._held = ""
        if not final:
            match = _INCOMPLETE_ESCAPE.search(text)
            if match and len(text) - match.start() <= _MAX_HELD_ESCAPE:
                self._held = text[match.start() :]
                text = text[: match.start()]
        return text, False


def resolve_shell(shell_path: str | None) -> str:
    """The configured shell, else /bin/bash, else bash on PATH, else sh."""
    if shell_path:
        if os.path.isabs(shell_path) and os.access(shell_path, os.X_OK):
            return shell_path
        found = shutil.which(shell_path)
        if found:
            return found
        raise ShellError(f"Shell not found: {shell_path}")
    if os.access("/bin/bash", os.X_OK):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


async def _pump(
    stream: asyncio.StreamReader, channel: Channel, on_output: OutputCallback, on_display: DisplayCallback | None
) -> None:
    sanitizer = StreamSanitizer()
    while True:
        data = await stream.read(_READ_SIZE)
        if on_display is None:
            text = sanitizer.feed(data, final=not data)
        else:
            text, coloured = sanitizer.feed_both(data, final=not data)
            # The coloured copy first: on_output may send an update that should carry it already.
            if coloured:
                on_display(coloured)
        if text:
            on_output(channel, text)
        if not data:
            return


def _group_alive(pgid: int) -> bool:
    """Whether a process of the group still runs. Zombies do not count: killed children orphaned by
    the shell wait for init to reap them (in a container, maybe never), yet they are gone already."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no /proc: a signal-0 probe is all we have
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class _ExitAwareProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The stream protocol asyncio uses, plus an event set the moment the shell itself exits.

    `Process.wait()` only returns once every pipe is closed too, which background children
    (`server &`) can postpone forever; the exit event lets us stop waiting for them.
    """

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


@dataclass
class _Running:
    process: asyncio.subprocess.Process
    transport: asyncio.SubprocessTransport
    exited: asyncio.Event
    readers: list[asyncio.Task[None]]


def shell_argument(script: str) -> bytes:
    """The command as argv bytes. Surrogate-escaped bytes (\\udc80-\\udcff) become the raw bytes they
    stand for; any other lone surrogate (from a JSON "\\ud800") cannot be passed to a process and is
    replaced by U+FFFD instead of failing the command."""
    try:
        return script.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        kept = re.sub("[\ud800-\udc7f\udd00-\udfff]", "\ufffd", script)
        return kept.encode("utf-8", errors="surrogateescape")


async def _spawn(
    shell: str, script: str, cwd: Path | str, env: Mapping[str, str] | None, launch: Launch | None
) -> _Running:
    loop = asyncio.get_running_loop()
    protocol = _ExitAwareProtocol(2**16, loop)
    argv: list[str | bytes] = launch.argv if launch is not None else [shell, "-c", shell_argument(script)]
    transport, _ = await loop.subprocess_exec(
        lambda: protocol,
        *argv,
        pass_fds=launch.pass_fds if launch is not None else (),
        cwd=str(cwd),
        env=dict(env) if env is not None else None,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        # A new session makes the shell the leader of a new process group we can kill as a whole.
        start_new_session=True,
    )
    # The same wrapper asyncio.create_subprocess_exec returns; it exposes stdout/stderr readers.
    process = asyncio.subprocess.Process(transport, protocol, loop)
    return _Running(process, transport, protocol.exited, [])


async def _kill_process_group(running: _Running) -> None:
    """SIGTERM the shell's whole group, SIGKILL whatever is left after a grace, wait for the exit."""
    pgid = running.process.pid
    _signal_group(pgid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + KILL_GRACE_SECONDS
    while loop.time() < deadline:
        if running.exited.is_set() and not _group_alive(pgid):
            break
        await asyncio.sleep(_KILL_POLL_SECONDS)
    if _group_alive(pgid):
        _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(running.exited.wait(), 5)


async def _drain(readers: list[asyncio.Task[None]], timeout: float) -> None:
    _done, pending = await asyncio.wait(readers, timeout=timeout)
    for task in pending:
        task.cancel()
    for task in readers:
        with contextlib.suppress(asyncio.CancelledError):
            await task


def build_command(command: str, command_prefix: str | None) -> str:
    return f"{command_prefix}\n{command}" if command_prefix else command


async def run_shell(
    command: str,
    cwd: Path | str,
    *,
    on_output: OutputCallback,
    timeout_s: float | None = None,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    env: Mapping[str, str] | None = None,
    launcher: Launcher | None = None,
    on_display: DisplayCallback | None = None,
) -> ShellResult:
    """Run `command` with `<shell> -c`, calling `on_output(channel, text)` as output arrives.

    Returns when the shell exits (or the timeout kills its group) and its output is read; output
    still trickling from background children is waited for at most PIPE_DRAIN_SECONDS. On
    cancellation the process group is killed before CancelledError propagates. `env` replaces the
    environment when given. `launcher` starts the shell inside a sandbox: its launcher process leads
    the group, so timeouts and aborts reach everything it started. `on_display` also gets the output
    with its colours kept (see `keep_colours`), before `on_output` gets it without. Raises ShellError
    if the command cannot start.
    """
    if not os.path.isdir(cwd):
        raise ShellError(f"Working directory does not exist: {cwd}\nCannot execute bash commands.")
    shell = resolve_shell(shell_path)
    script = build_command(command, command_prefix)
    launch = launcher([shell, "-c", shell_argument(script)]) if launcher is not None else None
    try:
        running = await _spawn(shell, script, cwd, env, launch)
    except OSError as exc:
        if launch is not None:
            launch.finished()
        program = launch.argv[0] if launch is not None else shell
        raise ShellError(f"Could not start {program!s}: {exc.strerror or exc}") from None
    if launch is not None:
        launch.started()

    stdout, stderr = running.process.stdout, running.process.stderr
    assert stdout is not None and stderr is not None
    running.readers = [
        asyncio.create_task(_pump(stdout, "stdout", on_output, on_display)),
        asyncio.create_task(_pump(stderr, "stderr", on_output, on_display)),
    ]
    try:
        if launch is not None:
            await launch.ready()
        try:
            await asyncio.wait_for(running.exited.wait(), timeout_s)
        except TimeoutError:
            await _kill_process_group(running)
            await _drain(running.readers, PIPE_DRAIN_SECONDS)
            return ShellResult(exit_code=None, timed_out=True)
        await _drain(running.readers, PIPE_DRAIN_SECONDS)
        return ShellResult(exit_code=running.transport.get_returncode())
    except asyncio.CancelledError:
        # Shield the cleanup: a second cancel must not leave the group running.
        cleanup = asyncio.ensure_future(_cleanup_after_cancel(running))
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(cleanup)
        raise
    finally:
        # Release our pipe ends even if a background child still holds the other end.
        running.transport.close()
        if launch is not None:
            launch.finished()


async def _cleanup_after_cancel(running: _Running) -> None:
    await _kill_process_group(running)
    await _drain(running.readers, 0.2)
