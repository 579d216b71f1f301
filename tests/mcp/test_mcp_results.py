"""What an MCP tool result puts into the context: bounded text, the rest in a file; user-only content."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.results import ResultLimits
from atomic.core.mcp.tools import McpTool
from atomic.core.tools.base import ToolContext, ToolError

from .conftest import tiny


@pytest.fixture
async def conn(tmp_path: Path) -> AsyncIterator[McpConnection]:
    connection = McpConnection(tiny(), cwd=tmp_path, log_dir=tmp_path / "logs", startup_timeout_s=30)
    connection.start()
    await connection.wait_ready(30)
    assert connection.status == "connected", connection.error
    try:
        yield connection
    finally:
        await connection.stop()


def tool(conn: McpConnection, name: str, limits: ResultLimits | None = None) -> McpTool:
    info = next(t for t in conn.tools if t.name == name)
    return McpTool(conn, info, lambda: 30.0, lambda: limits or ResultLimits())


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="mcp-results-test")


async def test_a_large_result_is_cut_to_50kb_and_the_whole_text_is_in_a_private_file(
    conn: McpConnection, tmp_path: Path
) -> None:
    # 5,000 lines of 107 bytes: about 535 KB, over both limits (bytes first).
    out = await tool(conn, "big").execute("c1", {"lines": 5000, "width": 100}, ctx(tmp_path))
    text = out.content[0].text
    assert len(text.encode()) < 51 * 1024
    assert text.startswith("000001 ")
    assert "Showing lines 1-" in text and "of 5000" in text and "50.0KB limit" in text
    path = Path(out.details["fullOutputPath"])
    assert f"Full output: {path}" in text
    saved = path.read_text()
    assert saved.count("\n") == 4999 and saved.endswith("005000 " + "x" * 100)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    # The image is not text: kept, and not counted against the limit.
    assert [b.type for b in out.content] == ["text", "image"]
    assert out.details["truncation"]["totalLines"] == 5000
    assert "structuredContent" not in out.details


async def test_the_line_limit_applies_when_it_comes_first(conn: McpConnection, tmp_path: Path) -> None:
    out = await tool(conn, "big").execute("c1", {"lines": 3000, "width": 1}, ctx(tmp_path))
    text = out.content[0].text
    assert "Showing lines 1-2000 of 3000 (2000 lines limit" in text
    assert "002000 x" in text and "002001 x" not in text


async def test_the_limit_is_a_setting(conn: McpConnection, tmp_path: Path) -> None:
    out = await tool(conn, "big", ResultLimits(max_bytes=1000, max_lines=10_000)).execute(
        "c1", {"lines": 200, "width": 10}, ctx(tmp_path))
    assert len(out.content[0].text.encode()) < 1300
    small = await tool(conn, "big").execute("c2", {"lines": 200, "width": 10}, ctx(tmp_path))
    assert "fullOutputPath" not in small.details and "Showing" not in small.content[0].text


async def test_a_huge_error_message_is_bounded_too(conn: McpConnection, tmp_path: Path) -> None:
    with pytest.raises(ToolError) as caught:
        await tool(conn, "fail").execute("c1", {"message": "E" * 200_000}, ctx(tmp_path))
    assert len(str(caught.value)) < 52 * 1024 and "Full output:" in str(caught.value)


async def test_user_only_content_is_not_sent_to_the_model(conn: McpConnection, tmp_path: Path) -> None:
    out = await tool(conn, "annotated").execute("c1", {}, ctx(tmp_path))
    assert [b.text for b in out.content] == ["for the model"]
    assert out.details["userContent"] == ["for the user only"]


async def test_tools_that_need_mcp_tasks_are_not_offered(conn: McpConnection) -> None:
    names = {t.name for t in conn.tools}
    assert "add" in names and "tasky" not in names


async def test_progress_becomes_tool_updates_and_server_logs_go_to_its_log(
    conn: McpConnection, tmp_path: Path
) -> None:
    updates: list[Any] = []
    context = ToolContext(cwd=tmp_path, session_id="mcp-results-test", on_update=updates.append)
    out = await tool(conn, "steps").execute("c1", {"count": 3}, context)
    assert out.content[0].text == "3 steps"
    assert [u.content[0].text for u in updates] == ["step 1 (1/3)", "step 2 (2/3)", "step 3 (3/3)"]
    assert updates[-1].details == {"progress": 3, "total": 3, "message": "step 3"}
    log = conn.log_path.read_text()
    assert "[info] did step 1" in log and "[info] did step 3" in log
