"""A real stdio MCP server (written with the SDK): listing, calling, errors, timeouts, abort, restart."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from atomic.core.mcp.config import McpConfigResult
from atomic.core.mcp.connection import McpConnection, McpError
from atomic.core.mcp.manager import McpLimits, McpManager
from atomic.core.mcp.tools import McpTool
from atomic.core.tools.base import ToolContext, ToolError

from .conftest import tiny, wait_for


def connection(tmp_path: Path, *args: str, startup: float = 30.0, **kwargs: object) -> McpConnection:
    return McpConnection(tiny("tiny", *args, **kwargs), cwd=tmp_path, log_dir=tmp_path / "logs",
                         startup_timeout_s=startup)


def ctx(tmp_path: Path, images: bool = True) -> ToolContext:
    return ToolContext(cwd=tmp_path, supports_images=images)


def tool(conn: McpConnection, name: str, timeout: float = 30.0) -> McpTool:
    info = next(t for t in conn.tools if t.name == name)
    return McpTool(conn, info, lambda: timeout)


async def test_lists_and_calls_tools_and_logs_stderr(tmp_path: Path) -> None:
    conn = connection(tmp_path, env={"TINY_MARK": "from-config"})
    conn.start()
    await conn.wait_ready(30)
    try:
        assert conn.status == "connected", conn.error
        names = {t.name for t in conn.tools}
        assert {"add", "echo", "sleep", "die", "fail", "picture", "weather"} <= names
        add = tool(conn, "add")
        assert add.name == "mcp__tiny__add"
        assert add.parameters["properties"]["a"]["type"] == "integer"
        out = await add.execute("c1", {"a": 2, "b": 40}, ctx(tmp_path))
        assert out.content[0].text == "42"
        assert out.details["structuredContent"] == {"result": 42}
        echo = await tool(conn, "echo").execute("c2", {"text": "hi"}, ctx(tmp_path))
        assert "hi [from-config]" in echo.content[0].text
    finally:
        await conn.stop()
    log = conn.log_path.read_text()
    assert "tiny: ready" in log and "starting" in log


async def test_error_results_images_and_structured_content(tmp_path: Path) -> None:
    conn = connection(tmp_path)
    conn.start()
    await conn.wait_ready(30)
    try:
        with pytest.raises(ToolError, match="no such city"):
            await tool(conn, "fail").execute("c1", {"message": "no such city"}, ctx(tmp_path))
        with pytest.raises(ToolError, match="validation error"):
            await tool(conn, "add").execute("c2", {"a": "x", "b": 1}, ctx(tmp_path))
        pic = await tool(conn, "picture").execute("c3", {}, ctx(tmp_path))
        assert [b.type for b in pic.content] == ["text", "image"]
        assert pic.content[1].mime_type == "image/png"
        text_only = await tool(conn, "picture").execute("c4", {}, ctx(tmp_path, images=False))
        assert [b.type for b in text_only.content] == ["text", "text"]
        assert "omitted" in text_only.content[1].text
        weather = await tool(conn, "weather").execute("c5", {"city": "Oslo"}, ctx(tmp_path))
        assert weather.details["structuredContent"] == {"city": "Oslo", "celsius": 21}
        assert "Oslo" in weather.content[0].text
    finally:
        await conn.stop()


async def test_timeout_and_abort_leave_the_server_usable(tmp_path: Path) -> None:
    conn = connection(tmp_path)
    conn.start()
    await conn.wait_ready(30)
    try:
        with pytest.raises(ToolError, match="timed out after 0.3 s"):
            await tool(conn, "sleep", timeout=0.3).execute("c1", {"seconds": 20}, ctx(tmp_path))
        task = asyncio.ensure_future(tool(conn, "sleep").execute("c2", {"seconds": 20}, ctx(tmp_path)))
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        out = await tool(conn, "add").execute("c3", {"a": 1, "b": 1}, ctx(tmp_path))
        assert out.content[0].text == "2"
        assert conn.status == "connected" and conn.restarts == 0
    finally:
        await conn.stop()


async def test_a_crashed_server_fails_clearly_then_restarts_on_the_next_call(tmp_path: Path) -> None:
    conn = connection(tmp_path)
    conn.start()
    await conn.wait_ready(30)
    try:
        first_pid = (await tool(conn, "echo").execute("c0", {"text": "a"}, ctx(tmp_path))).content[0].text
        with pytest.raises(ToolError, match="MCP server tiny stopped .*restarted on the next call"):
            await tool(conn, "die").execute("c1", {}, ctx(tmp_path))
        assert conn.status == "crashed"
        again = await tool(conn, "echo").execute("c2", {"text": "b"}, ctx(tmp_path))
        assert conn.status == "connected" and conn.restarts == 1
        assert again.content[0].text.split("pid=")[1] != first_pid.split("pid=")[1]
    finally:
        await conn.stop()


@pytest.mark.parametrize(
    ("args", "startup", "expected"),
    [
        (("--exit",), 60.0, "Connection closed: exited with code 2: tiny: exiting on purpose"),
        (("--garbage",), 2.0, "did not start within 2 s: stdout is not JSON-RPC: 'this is not json-rpc'"),
    ],
)
async def test_servers_that_exit_or_speak_garbage_fail_with_a_reason(
    tmp_path: Path, args: tuple[str, ...], startup: float, expected: str
) -> None:
    conn = connection(tmp_path, *args, startup=startup)
    conn.start()
    await conn.wait_ready(30)
    assert conn.status == "failed"
    assert expected in (conn.error or "")
    with pytest.raises(McpError):
        await conn.call("add", {}, 1)
    await conn.stop()


async def test_a_missing_command_fails_at_once(tmp_path: Path) -> None:
    from atomic.core.mcp.config import McpServerConfig

    conn = McpConnection(McpServerConfig(name="nope", command="/no/such/binary-xyz"), cwd=tmp_path,
                         log_dir=tmp_path / "logs", startup_timeout_s=30)
    conn.start()
    await conn.wait_ready(10)
    assert conn.status == "failed"
    assert "/no/such/binary-xyz" in (conn.error or "")


async def test_manager_waits_for_starting_servers_but_not_for_dead_ones(tmp_path: Path) -> None:
    servers = [tiny("good"), tiny("dead", "--exit"), tiny("slow", "--slow-start", "600")]
    manager = McpManager(McpConfigResult(servers, [], [], []), cwd=tmp_path, agent_dir=tmp_path,
                         limits=McpLimits(prompt_wait_s=600, startup_timeout_s=600))
    notices: list[str] = []
    manager.set_notice_sink(notices.append)
    manager.start()
    try:
        good, dead = manager.connections["good"], manager.connections["dead"]
        await wait_for(lambda: good.settled and dead.settled, 60)
        # The prompt's wait is bounded: it returns although "slow" is still starting.
        await asyncio.wait_for(manager.wait_ready(limit_s=0.2), 10)
        states = {s.name: s for s in manager.states()}
        assert states["good"].status == "connected" and "mcp__good__add" in states["good"].tools
        assert states["dead"].status == "failed"
        assert states["slow"].status == "starting"
        assert manager.starting
        await wait_for(lambda: any(n.startswith("MCP server dead failed to start") for n in notices), 5)
        assert manager.find_tool("mcp__good__add") is not None
    finally:
        await manager.shutdown()
    assert manager.connections["slow"].status == "stopped"
