"""MCP servers a client passes in ACP `session/new` (their own shape, literal values).

Its own module so that the contract can offer it without importing the configuration parser at
start-up: config.py is imported when a client actually passes servers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atomic.core.mcp.config import McpServerConfig


def parse_acp_servers(items: list[dict[str, Any]]) -> tuple[list[McpServerConfig], list[str]]:
    """Servers in ACP `session/new` shape: `env` and `headers` are lists of `{name, value}`."""
    from atomic.core.mcp.config import parse_server

    servers: list[McpServerConfig] = []
    problems: list[str] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append("ACP MCP server without a name; skipped")
            continue
        raw = dict(item)
        for key in ("env", "headers"):
            if isinstance(raw.get(key), list):
                raw[key] = {e["name"]: e.get("value", "") for e in raw[key] if isinstance(e, dict) and "name" in e}
        # ACP values are literal: no ${VAR} expansion from Atomic's own environment.
        name = raw.pop("name")
        try:
            config, _ = parse_server(name, raw, source="session", environ={})
        except ValueError as exc:
            problems.append(f"ACP MCP server {name!r} {exc}; skipped")
            continue
        servers.append(config)
    return servers, problems
