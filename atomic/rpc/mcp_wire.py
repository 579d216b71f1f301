"""The protocol JSON of the `get_mcp_servers` command (an Atomic extension of the RPC protocol)."""

from __future__ import annotations

from typing import Any

from atomic.core.engine.session import AgentSession
from atomic.core.mcp.manager import McpServerState


def server_wire(state: McpServerState) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": state.name,
        "source": state.source,
        "transport": state.transport,
        "target": state.target,
        "status": state.status,
        "tools": list(state.tools),
        "restarts": state.restarts,
        "deferred": state.deferred,
    }
    if state.error:
        data["error"] = state.error
    if state.server_name:
        data["serverName"] = state.server_name
    if state.log_path:
        data["logPath"] = state.log_path
    return data


def mcp_servers_wire(session: AgentSession) -> dict[str, Any]:
    states = session.mcp.states() if session.mcp is not None else []
    data: dict[str, Any] = {"servers": [server_wire(s) for s in states]}
    trust = session.project_trust
    if trust is not None:
        data["projectTrust"] = {"trusted": trust.trusted, "source": trust.source, "cwd": str(trust.cwd)}
        if trust.decided_by is not None:
            data["projectTrust"]["decidedBy"] = str(trust.decided_by)
    return data
