"""A real MCP server over streamable HTTP (and SSE) on 127.0.0.1: listing, calling, errors, headers."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.mcp.config import McpServerConfig
from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.tools import McpTool
from atomic.core.tools.base import ToolContext, ToolError

from .conftest import free_port


async def test_http_server_lists_and_calls_tools(tmp_path: Path, http_server: tuple[str, str]) -> None:
    kind, url = http_server
    config = McpServerConfig(name="web", transport=kind, url=url,  # type: ignore[arg-type]
                             headers={"X-Test": "1"})
    conn = McpConnection(config, cwd=tmp_path, log_dir=tmp_path, startup_timeout_s=30)
    conn.start()
    await conn.wait_ready(40)
    try:
        assert conn.status == "connected", conn.error
        tools = {t.name: McpTool(conn, t, lambda: 0.5) for t in conn.tools}
        ctx = ToolContext(cwd=tmp_path)
        assert (await tools["add"].execute("1", {"a": 5, "b": 6}, ctx)).content[0].text == "11"
        with pytest.raises(ToolError, match="nope"):
            await tools["fail"].execute("2", {"message": "nope"}, ctx)
        with pytest.raises(ToolError, match="timed out"):
            await tools["sleep"].execute("3", {"seconds": 10}, ctx)
        assert (await tools["add"].execute("4", {"a": 1, "b": 1}, ctx)).content[0].text == "2"
    finally:
        await conn.stop()


async def test_unreachable_http_server_fails_with_a_reason(tmp_path: Path) -> None:
    config = McpServerConfig(name="gone", transport="http", url=f"http://127.0.0.1:{free_port()}/mcp")
    conn = McpConnection(config, cwd=tmp_path, log_dir=tmp_path, startup_timeout_s=20)
    conn.start()
    await conn.wait_ready(30)
    assert conn.status == "failed"
    assert conn.error
    await conn.stop()
