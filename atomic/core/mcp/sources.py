"""Where MCP servers can be configured, and a cheap look at whether any place holds some.

Apart from config.py so that start-up and the project scan (project_offer.py) can tell "no MCP
server anywhere" without importing the configuration's parsing (docs/performance.md, "Start-up").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

USER_MCP_FILE = "mcp.json"  # in the agent dir
PROJECT_MCP_FILE = ".mcp.json"  # Claude Code's file, in the project folder


def any_configured(
    cwd: Path,
    agent_dir: Path,
    *,
    user_settings: Mapping[str, Any],
    project_settings: Mapping[str, Any],
    extra: Sequence[object] = (),
) -> bool:
    """False only when no source of config.py's `load_mcp_config` can hold a server: no
    `mcpServers` key in either settings, neither file present, no servers passed in. A file
    that is present is left to the parser, which also reports it when it is broken."""
    return bool(
        extra
        or "mcpServers" in user_settings
        or "mcpServers" in project_settings
        or (agent_dir / USER_MCP_FILE).exists()
        or (cwd / PROJECT_MCP_FILE).exists()
    )
