from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from atomic.core.shell import ShellError, StreamSanitizer, run_shell


def collector() -> tuple[list[tuple[str, str]], object]:
    chunks: list[tuple[str, str]] = []
    return chunks, lambda channel, text: chunks.append((channel, text))


async def test_streams_stdout_and_stderr_in_arrival_order(tmp_path: Path) -> None:
    chunks, on_output = collector()
    command = "echo out1; sleep 0.1; echo err1 >&2; sleep 0.1; echo out2"
    result = await run_shell(command, tmp_path, on_output=on_output)
    assert result.exit_code == 0 and not result.timed_out and not result.cancelled
    assert chunks == [("stdout", "out1\n"), ("stderr", "err1\n"), ("stdout", "out2\n")]


async def test_strips_ansi_and_carriage_returns(tmp_path: Path) -> None:
    chunks, on_output = collector()
    await run_shell(r"printf '\033[31mred\033[0m\r\nplain\n'", tmp_path, on_output=on_output)
    assert "".join(text for _, text in chunks) == "red\nplain\n"


def test_sanitizer_handles_split_utf8_and_split_escape() -> None:
    sanitizer = StreamSanitizer()
    encoded = "é\x1b[1mbold\x1b[0m".encode()
    parts = [encoded[:1], encoded[1:4], encoded[4:]]
    assert "".join(sanitizer.feed(p) for p in parts) + sanitizer.feed(b"", final=True) == "ébold"


async def test_exit_code_cwd_and_prefix(tmp_path: Path) -> None:
    chunks, on_output = collector()
    result = await run_shell(
        "echo $GREETING $(pwd); exit 3", tmp_path, on_output=on_output, command_prefix="GREETING=hi"
    )
    assert result.exit_code == 3
    assert chunks == [("stdout", f"hi {tmp_path}\n")]


async def test_missing_cwd_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ShellError, match="Working directory does not exist"):
        await run_shell("true", tmp_path / "gone", on_output=lambda *_: None)


async def test_timeout_kills_the_command(tmp_path: Path) -> None:
    started = time.monotonic()
    result = await run_shell("sleep 10", tmp_path, on_output=lambda *_: None, timeout_s=0.3)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - started < 3


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat_text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat_text.rsplit(")", 1)[1].split()
        state, process_group = fields[0], int(fields[2])
        if process_group == pgid and state not in ("Z", "X"):
            members.append(int(entry))
    return members


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
async def test_cancel_kills_the_whole_process_group(tmp_path: Path) -> None:
    chunks, on_output = collector()
    task = asyncio.create_task(run_shell("echo $$; sleep 100 & sleep 100; ", tmp_path, on_output=on_output))
    deadline = time.monotonic() + 5
    while not chunks or len(group_members(int(chunks[0][1]))) < 3:
        assert time.monotonic() < deadline, "shell and both sleeps never showed up"
        await asyncio.sleep(0.02)
    leader = int(chunks[0][1])
    members = group_members(leader)
    assert leader in members and len(members) >= 3

    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Orphaned children are reaped by init; give it a moment, but they must already be dead.
    deadline = time.monotonic() + 2
    while group_members(leader):
        assert time.monotonic() < deadline, f"still alive: {group_members(leader)}"
        await asyncio.sleep(0.02)


async def test_background_child_holding_the_pipe_does_not_block(tmp_path: Path) -> None:
    chunks, on_output = collector()
    started = time.monotonic()
    result = await run_shell("sleep 30 & echo $!", tmp_path, on_output=on_output)
    elapsed = time.monotonic() - started
    background_pid = int(chunks[0][1])
    os.kill(background_pid, 9)  # our own child; not needed once the test is done
    assert result.exit_code == 0
    assert elapsed < 3
