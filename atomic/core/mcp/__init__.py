"""The MCP client: tools from Model Context Protocol servers (see docs/mcp.md).

Importing this package is cheap: the `mcp` SDK is imported in a worker thread only when a
configured server starts.
"""

from __future__ import annotations

from pathlib import Path

from atomic.core.mcp.config import McpServerConfig, load_mcp_config, parse_acp_servers
from atomic.core.mcp.manager import McpLimits, McpManager, McpServerState
from atomic.core.settings import SettingsManager
from atomic.core.trust import ProjectTrust

__all__ = [
    "McpLimits",
    "McpManager",
    "McpServerConfig",
    "McpServerState",
    "create_mcp_manager",
    "parse_acp_servers",
]


def create_mcp_manager(
    cwd: Path,
    agent_dir: Path,
    settings: SettingsManager,
    trust: ProjectTrust,
    *,
    extra: list[McpServerConfig] | None = None,
) -> McpManager | None:
    """The session's MCP servers (not started yet), or None when nothing is configured anywhere."""
    config = load_mcp_config(
        cwd,
        agent_dir,
        user_settings=settings.global_raw(),
        project_settings=settings.project_raw(),
        project_trusted=trust.trusted,
        extra=extra,
    )
    if not (config.servers or config.untrusted or config.disabled or config.problems):
        return None
    s = settings.settings.mcp
    limits = McpLimits(
        startup_timeout_s=s.startup_timeout_ms / 1000,
        tool_timeout_s=s.tool_timeout_ms / 1000,
        prompt_wait_s=s.prompt_wait_ms / 1000,
        tool_search=s.tool_search,
    )
    return McpManager(config, cwd=cwd, agent_dir=agent_dir, limits=limits, announce_untrusted=trust.undecided)
