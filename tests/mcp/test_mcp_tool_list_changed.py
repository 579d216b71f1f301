"""`notifications/tools/list_changed`: a server that adds or removes tools at runtime is listed again."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.mcp.config import McpConfigResult, McpServerConfig
from atomic.core.mcp.manager import McpLimits, McpManager
from atomic.core.messages import ToolResultMessage
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.tools.base import ToolContext

from .conftest import SERVER, tiny, wait_for


def tool_names(manager: McpManager) -> set[str]:
    return {t.name for t in manager.all_tools()}


async def test_added_and_removed_tools_reach_the_manager_and_the_state(tmp_path: Path) -> None:
    manager = McpManager(McpConfigResult(servers=[tiny()], untrusted=[], disabled=[], problems=[]), cwd=tmp_path, agent_dir=tmp_path,
                         limits=McpLimits(startup_timeout_s=60))
    manager.start()
    await manager.wait_ready(60)
    try:
        conn = manager.connections["tiny"]
        assert conn.status == "connected", conn.error
        before = len(manager.states()[0].tools)
        assert "mcp__tiny__extra_one" not in tool_names(manager)

        grow = manager.find_tool("mcp__tiny__grow")
        assert grow is not None
        out = await grow.execute("c1", {"name": "one"}, ToolContext(cwd=tmp_path))
        assert out.content[0].text == "added extra_one"
        # The call that changed the tools returns only once the new list is in.
        assert "mcp__tiny__extra_one" in tool_names(manager)
        state = manager.states()[0]
        assert len(state.tools) == before + 1 and state.status == "connected"
        assert conn.tool_refreshes == 1

        # The new tool is callable through the same connection.
        extra = manager.find_tool("mcp__tiny__extra_one")
        assert extra is not None
        result = await extra.execute("c2", {"value": "hi"}, ToolContext(cwd=tmp_path))
        assert result.content[0].text == "one says hi"

        shrink = manager.find_tool("mcp__tiny__shrink")
        assert shrink is not None
        await shrink.execute("c3", {"name": "extra_one"}, ToolContext(cwd=tmp_path))
        assert "mcp__tiny__extra_one" not in tool_names(manager)
        assert len(manager.states()[0].tools) == before
        assert manager.find_tool("mcp__tiny__extra_one") is None
    finally:
        await manager.shutdown()
    assert "tools changed: now" in manager.connections["tiny"].log_path.read_text()


async def test_the_next_step_offers_a_tool_added_by_the_previous_one(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "mcp.json").write_text(
        json.dumps({"mcpServers": {"tiny": {"command": sys.executable, "args": [str(SERVER)]}}})
    )
    (agent_dir / "settings.json").write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    provider = ScriptedProvider([
        {"toolCalls": [{"name": "mcp__tiny__grow", "arguments": {"name": "late"}}]},
        {"toolCalls": [{"name": "mcp__tiny__extra_late", "arguments": {"value": "hello"}}]},
        {"text": "done"},
    ])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    try:
        await session.prompt("grow a tool and use it")
        await session.wait_idle()
        assert "mcp__tiny__extra_late" not in [t.name for t in provider.requests[0].tools]
        # Same turn, next request: the tool the previous step added is offered and callable.
        assert "mcp__tiny__extra_late" in [t.name for t in provider.requests[1].tools]
        results = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
        assert [r.content[0].text for r in results] == ["added extra_late", "late says hello"]
        assert not any(r.is_error for r in results)
    finally:
        await session.shutdown()


async def test_list_changed_over_http_and_sse(tmp_path: Path, http_server: tuple[str, str]) -> None:
    kind, url = http_server
    server = McpServerConfig(name="web", transport="http" if kind == "http" else "sse", url=url)
    manager = McpManager(McpConfigResult(servers=[server], untrusted=[], disabled=[], problems=[]), cwd=tmp_path,
                         agent_dir=tmp_path, limits=McpLimits(startup_timeout_s=60))
    manager.start()
    await manager.wait_ready(60)
    try:
        assert manager.connections["web"].status == "connected", manager.connections["web"].error
        grow = manager.find_tool("mcp__web__grow")
        assert grow is not None
        await grow.execute("c1", {"name": "net"}, ToolContext(cwd=tmp_path))
        await wait_for(lambda: "mcp__web__extra_net" in tool_names(manager))
    finally:
        await manager.shutdown()
