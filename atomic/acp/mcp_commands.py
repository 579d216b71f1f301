"""`/mcp` in ACP: the MCP servers and their state, and `/mcp reconnect <name>`.

An editor has no `/mcp` screen; the answer comes back as the agent's message.
"""

from __future__ import annotations

from acp import helpers

from atomic.acp.session_bridge import SessionBridge
from atomic.core.contract import McpServerStatus


def _line(server: McpServerStatus) -> str:
    tools = f", {len(server.tools)} tools" if server.tools else ""
    error = f": {server.error}" if server.error else ""
    return f"- {server.name} ({server.transport}, {server.source}): {server.status}{tools}{error}"


def _listing(servers: list[McpServerStatus]) -> str:
    if not servers:
        return "No MCP servers are configured (see docs/mcp.md)."
    return "MCP servers:\n" + "\n".join(_line(s) for s in servers)


async def run_mcp_command(bridge: SessionBridge, rest: str) -> None:
    """Answer `/mcp [reconnect <name>]` with a message."""
    engine = bridge.engine
    action, _, name = rest.strip().partition(" ")
    if action == "reconnect" and name.strip():
        state = await engine.mcp.reconnect(name.strip())
        text = f"No MCP server named {name.strip()!r}." if state is None else _line(state)
    elif not action:
        text = _listing(engine.mcp.servers())
    else:
        text = "Usage: /mcp, or /mcp reconnect <name>"
    bridge.send(helpers.update_agent_message_text(text))
