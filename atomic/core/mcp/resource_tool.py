"""`read_mcp_resource`: the model reads a resource of a connected server (offered only when one has some)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from atomic.core.mcp.catalog import resource_blocks
from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.errors import McpError
from atomic.core.mcp.results import ResultLimits, bound_result
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

RESOURCE_TOOL_NAME = "read_mcp_resource"
_LISTED = 40  # resources named in the description; the rest are still readable by URI


class ReadMcpResource(Tool):
    name = RESOURCE_TOOL_NAME
    label = "MCP resource"
    parameters = {
        "type": "object",
        "properties": {
            "server": {"type": "string", "description": "The MCP server's name"},
            "uri": {"type": "string", "description": "The resource's URI, as the server lists it"},
        },
        "required": ["server", "uri"],
        "additionalProperties": False,
    }

    def __init__(
        self,
        connections: Callable[[], Mapping[str, McpConnection]],
        timeout_s: Callable[[], float],
        limits: Callable[[], ResultLimits],
    ) -> None:
        self._connections = connections
        self._timeout_s = timeout_s
        self._limits = limits

    # The description lists the resources connected now, so it is computed.
    @property
    def description(self) -> str:  # type: ignore[override]
        lines = ["Read a resource (a file, a record, a page) of a connected MCP server. Resources:"]
        listed = [(c.name, r) for c in self._connections().values() for r in c.resources]
        for server, resource in listed[:_LISTED]:
            about = f" - {resource.description}" if resource.description else ""
            lines.append(f"- server {server}: {resource.uri} ({resource.name}){about}")
        if len(listed) > _LISTED:
            lines.append(f"... and {len(listed) - _LISTED} more")
        return "\n".join(lines)

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        server, uri = args.get("server"), args.get("uri")
        if not isinstance(server, str) or not isinstance(uri, str) or not uri.strip():
            raise ToolError("server and uri are required strings")
        conn = self._connections().get(server)
        if conn is None:
            raise ToolError(f"No MCP server named {server!r}: {', '.join(self._connections()) or 'none configured'}")
        try:
            result = await conn.read_resource(uri, self._timeout_s())
        except McpError as exc:
            raise ToolError(str(exc)) from None
        blocks = resource_blocks(result, supports_images=ctx.supports_images)
        bounded = bound_result(blocks, self._limits(), session_id=ctx.session_id, tool=RESOURCE_TOOL_NAME)
        details: dict[str, Any] = {"server": server, "uri": uri}
        if bounded.truncated:
            details["fullOutputPath"] = bounded.full_output_path
        return ToolOutput(content=bounded.blocks, details=details)
