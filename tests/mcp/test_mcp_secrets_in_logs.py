"""An MCP server's `${VAR}` stays unexpanded wherever it is shown, and its log is the user's alone."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from atomic.core.mcp.config import parse_server
from atomic.core.mcp.connection import McpConnection


def test_the_log_names_the_command_as_written_and_is_private(tmp_path: Path) -> None:
    config, _warnings = parse_server(
        "gh", {"command": "gh-server", "args": ["--token", "${GH_TOKEN}"]}, source="project",
        environ={"GH_TOKEN": "ghp-secret"},
    )
    assert config.args == ("--token", "ghp-secret")  # the server itself gets the value
    assert config.describe() == "gh-server --token ${GH_TOKEN}"
    http, _ = parse_server("api", {"url": "https://x.test/${GH_TOKEN}"}, source="project",
                           environ={"GH_TOKEN": "ghp-secret"})
    assert http.describe() == "http https://x.test/${GH_TOKEN}"
    logs = tmp_path / "agent" / "logs"
    connection = McpConnection(config, cwd=tmp_path, log_dir=logs, startup_timeout_s=1)
    with connection._open_log() as handle:
        handle.write("more\n")
    connection._write_log("failed: boom")
    text = connection.log_path.read_text()
    assert "${GH_TOKEN}" in text and "ghp-secret" not in text
    assert stat.S_IMODE(os.stat(connection.log_path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(logs).st_mode) == 0o700
