from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from atomic.core.bash_exec import execute_bash, spill_file_name
from atomic.core.temp_output import temp_root
from atomic.core.tools.base import ToolContext, ToolError, ToolOutput
from atomic.core.tools.bash import BashTool

from .conftest import run, text_of


async def test_merged_output(ctx: ToolContext) -> None:
    out = await run(BashTool(), ctx, command="echo one; echo two >&2")
    assert text_of(out) == "one\ntwo"
    assert out.details is None


async def test_no_output(ctx: ToolContext) -> None:
    assert text_of(await run(BashTool(), ctx, command="true")) == "(no output)"


async def test_nonzero_exit_is_an_error_with_output(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await run(BashTool(), ctx, command="echo oops; exit 7")
    assert str(caught.value) == "oops\n\nCommand exited with code 7"


async def test_timeout_message(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await run(BashTool(), ctx, command="echo started; sleep 10", timeout=0.5)
    assert str(caught.value) == "started\n\nCommand timed out after 0.5 seconds"


async def test_missing_cwd(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "nowhere")
    with pytest.raises(ToolError, match=r"Working directory does not exist: .*nowhere\nCannot execute bash commands."):
        await run(BashTool(), ctx, command="true")


async def test_shell_prefix_and_agent_bin_on_path(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    ctx = ToolContext(cwd=tmp_path, agent_dir=agent, shell_command_prefix="shopt -s expand_aliases\nX=1")
    out = await run(BashTool(), ctx, command='echo "$X ${PATH%%:*}"')
    assert text_of(out) == f"1 {agent / 'bin'}"


async def test_tail_truncation_spills_full_output(ctx: ToolContext, private_tempdir: Path) -> None:
    out = await run(BashTool(), ctx, command="seq 1 3000")
    text = text_of(out)
    match = re.search(r"\n\n\[Showing lines 1001-3000 of 3000\. Full output: (.+)\]$", text)
    assert match, text[-200:]
    assert text.startswith("1001\n")
    full_path = Path(match.group(1))
    assert full_path.parent == temp_root() / "test-session"
    assert re.fullmatch(r"atomic-bash-[0-9a-f]{16}\.log", full_path.name)
    assert full_path.read_text() == "".join(f"{i}\n" for i in range(1, 3001))
    assert out.details["fullOutputPath"] == str(full_path)
    assert out.details["truncation"]["truncatedBy"] == "lines"


async def test_progress_updates_carry_accumulated_output(tmp_path: Path) -> None:
    updates: list[ToolOutput] = []
    ctx = ToolContext(cwd=tmp_path, on_update=updates.append)
    await run(BashTool(), ctx, command="echo a; sleep 0.25; echo b; sleep 0.25; echo c")
    texts = [text_of(u) for u in updates]
    assert texts[0] == "a"
    assert texts[-1] == "a\nb\nc"
    assert all(later.startswith(earlier) for earlier, later in zip(texts, texts[1:], strict=False))
    assert updates[-1].details == {"truncation": None, "fullOutputPath": None}


async def test_abort_kills_and_keeps_the_output_so_far(tmp_path: Path) -> None:
    updates: list[ToolOutput] = []
    ctx = ToolContext(cwd=tmp_path, on_update=updates.append)
    task = asyncio.create_task(run(BashTool(), ctx, command="echo first; echo second >&2; sleep 30"))
    while not updates or text_of(updates[-1]) != "first\nsecond":
        await asyncio.sleep(0.02)
    task.cancel()
    # The result keeps what the command printed, marked as aborted (as pi does), instead of a bare
    # "Operation aborted"; the cancellation itself is consumed by the tool.
    with pytest.raises(ToolError) as caught:
        await asyncio.wait_for(task, 3)
    assert str(caught.value) == "first\nsecond\n\nCommand aborted"


async def test_abort_before_any_output(ctx: ToolContext) -> None:
    task = asyncio.create_task(run(BashTool(), ctx, command="sleep 30"))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(ToolError, match=r"^Command aborted$"):
        await asyncio.wait_for(task, 3)


# --------------------------------------------------------------------------- direct execution


async def test_execute_bash_reports_channels_and_exit_code(tmp_path: Path) -> None:
    chunks: list[tuple[str, str]] = []
    result = await execute_bash(
        "echo out; sleep 0.1; echo err >&2; exit 2",
        cwd=tmp_path, session_id="s", request_id="req-1",
        on_chunk=lambda channel, text: chunks.append((channel, text)),
    )
    assert chunks == [("stdout", "out\n"), ("stderr", "err\n")]
    assert (result.output, result.exit_code, result.cancelled, result.truncated) == ("out\nerr", 2, False, False)


async def test_execute_bash_truncation_path_uses_request_id(tmp_path: Path) -> None:
    result = await execute_bash(
        "seq 1 2500", cwd=tmp_path, session_id="sess-9", request_id="req/../7", on_chunk=lambda *_: None
    )
    assert result.truncated
    assert result.full_output_path == str(temp_root() / "sess-9" / "atomic-bash-req_.._7.log")
    assert Path(result.full_output_path).read_text().count("\n") == 2500
    assert result.output.splitlines()[0] == "501"


async def test_execute_bash_cancel_returns_a_result(tmp_path: Path) -> None:
    got_output = asyncio.Event()
    task = asyncio.create_task(
        execute_bash("echo begin; sleep 30", cwd=tmp_path, session_id="s", request_id="r",
                     on_chunk=lambda *_: got_output.set())
    )
    await asyncio.wait_for(got_output.wait(), 3)
    task.cancel()
    result = await asyncio.wait_for(task, 3)
    assert result.cancelled and result.exit_code is None and result.output == "begin"


def test_spill_file_name_sanitizes() -> None:
    assert spill_file_name("abc-1") == "atomic-bash-abc-1.log"
    assert "/" not in spill_file_name("../../x")
    assert re.fullmatch(r"atomic-bash-[0-9a-f]{16}\.log", spill_file_name(""))
    assert os.sep not in spill_file_name(None)
