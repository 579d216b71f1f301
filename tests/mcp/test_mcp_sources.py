"""The cheap look before parsing: no source can hold a server exactly when none is present."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.mcp.config import McpServerConfig, load_mcp_config
from atomic.core.mcp.sources import any_configured

SERVERS = {"mcpServers": {"tiny": {"command": "tiny-server"}}}


def look(cwd: Path, agent: Path, user: dict[str, Any], project: dict[str, Any], extra: list[McpServerConfig]) -> bool:
    return any_configured(cwd, agent, user_settings=user, project_settings=project, extra=extra)


def test_nothing_anywhere_is_nothing_to_parse(tmp_path: Path) -> None:
    cwd, agent = tmp_path / "project", tmp_path / "agent"
    cwd.mkdir()
    agent.mkdir()
    assert look(cwd, agent, {"theme": "dark"}, {}, []) is False
    config = load_mcp_config(cwd, agent, user_settings={"theme": "dark"}, project_settings={}, project_trusted=True)
    assert (config.servers, config.untrusted, config.disabled, config.problems) == ([], [], [], [])


@pytest.mark.parametrize("source", ["user settings", "project settings", "mcp.json", ".mcp.json", "passed in"])
def test_each_source_alone_is_looked_at(tmp_path: Path, source: str) -> None:
    cwd, agent = tmp_path / "project", tmp_path / "agent"
    cwd.mkdir()
    agent.mkdir()
    user: dict[str, Any] = SERVERS if source == "user settings" else {}
    project: dict[str, Any] = SERVERS if source == "project settings" else {}
    extra = [McpServerConfig(name="tiny", command="tiny-server")] if source == "passed in" else []
    if source == "mcp.json":
        (agent / "mcp.json").write_text(json.dumps(SERVERS))
    if source == ".mcp.json":
        (cwd / ".mcp.json").write_text("{ broken")  # present but broken: the parser reports it
    assert look(cwd, agent, user, project, extra) is True
    config = load_mcp_config(cwd, agent, user_settings=user, project_settings=project, project_trusted=True, extra=extra)
    assert config.servers or config.problems
