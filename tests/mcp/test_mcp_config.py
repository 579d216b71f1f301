"""MCP configuration: Claude Code's shapes, ${VAR} expansion, sources, precedence and the project policy."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.core.mcp.acp_servers import parse_acp_servers
from atomic.core.mcp.config import (
    McpServerConfig,
    load_mcp_config,
    parse_servers,
    read_mcp_file,
)


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_claude_code_shapes_and_variable_expansion() -> None:
    env = {"TOKEN": "s3cret", "HOST": "example.test", "EMPTY": ""}
    servers, problems = parse_servers(
        {
            "files": {"command": "${HOME_BIN:-/usr/bin}/node", "args": ["srv.js", "--token=${TOKEN}"],
                      "env": {"KEY": "${TOKEN}", "MODE": "${MODE:-dev}", "BLANK": "${EMPTY:-fallback}"}},
            "web": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
            "old": {"type": "sse", "url": "http://127.0.0.1:9/sse", "timeout": 5000},
            "implicit": {"url": "http://127.0.0.1:9/mcp"},
            "gemini": {"httpUrl": "http://127.0.0.1:9/mcp"},
        },
        source="user",
        environ=env,
    )
    assert problems == []
    by = {s.name: s for s in servers}
    assert by["files"].transport == "stdio"
    assert by["files"].command == "/usr/bin/node"
    assert by["files"].args == ("srv.js", "--token=s3cret")
    assert dict(by["files"].env) == {"KEY": "s3cret", "MODE": "dev", "BLANK": "fallback"}
    assert by["web"].transport == "http" and by["web"].url == "https://example.test/mcp"
    assert dict(by["web"].headers) == {"Authorization": "Bearer s3cret"}
    assert by["old"].transport == "sse" and by["old"].timeout_ms == 5000
    assert by["implicit"].transport == "http" and by["gemini"].transport == "http"


def test_broken_entries_are_skipped_with_a_reason_and_unset_variables_are_reported() -> None:
    servers, problems = parse_servers(
        {
            "ok": {"command": "run", "env": {"A": "${NOT_SET_ANYWHERE}"}},
            "nothing": {},
            "badtype": {"type": "websocket", "url": "ws://x"},
            "badargs": {"command": "x", "args": "not-a-list"},
            "badurl": {"type": "http", "url": "ftp://x"},
            "badtimeout": {"command": "x", "timeout": -1},
            "notobject": 3,
        },
        source="user",
        environ={},
    )
    assert [s.name for s in servers] == ["ok"]
    text = "\n".join(problems)
    for name in ("nothing", "badtype", "badargs", "badurl", "badtimeout", "notobject"):
        assert f"'{name}'" in text
    assert "${NOT_SET_ANYWHERE} is not set" in text


def test_a_broken_file_is_reported_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text("{not json")
    servers, problems = read_mcp_file(path, "project")
    assert servers == [] and "not valid JSON" in problems[0]
    assert read_mcp_file(tmp_path / "missing.json", "project") == ([], [])


def test_sources_precedence_trust_and_claude_code_policy(tmp_path: Path) -> None:
    cwd, agent = tmp_path / "proj", tmp_path / "agent"
    write(agent / "mcp.json", {"mcpServers": {"shared": {"command": "user-version"}, "mine": {"command": "m"}}})
    write(cwd / ".mcp.json", {"mcpServers": {"shared": {"command": "project-version"},
                                             "extra": {"command": "e"}, "off": {"command": "o"}}})
    user_settings = {"mcpServers": {"fromsettings": {"command": "s"}}, "disabledMcpjsonServers": ["off"]}

    untrusted = load_mcp_config(cwd, agent, user_settings=user_settings, project_settings={},
                                project_trusted=False)
    assert sorted(s.name for s in untrusted.servers) == ["fromsettings", "mine", "shared"]
    assert {s.name: s.command for s in untrusted.servers}["shared"] == "user-version"
    assert sorted(s.name for s in untrusted.untrusted) == ["extra", "off", "shared"]

    trusted = load_mcp_config(cwd, agent, user_settings=user_settings, project_settings={}, project_trusted=True)
    by = {s.name: s for s in trusted.servers}
    assert by["shared"].command == "project-version" and by["shared"].source == "project"
    assert "extra" in by and "off" not in by
    assert [s.name for s in trusted.disabled] == ["off"]
    assert by["fromsettings"].source == "settings" and by["mine"].source == "user"

    limited = load_mcp_config(cwd, agent, user_settings={"enabledMcpjsonServers": ["extra"],
                                                         "enableAllProjectMcpServers": True},
                              project_settings={}, project_trusted=True)
    assert sorted(s.name for s in limited.servers) == ["extra", "mine", "shared"]
    # "shared" is the user's own server here: the project's version was not enabled.
    assert {s.name: s.source for s in limited.servers}["shared"] == "user"

    extra = McpServerConfig(name="mine", command="from-acp")
    passed = load_mcp_config(cwd, agent, user_settings={}, project_settings={}, project_trusted=False,
                             extra=[extra])
    assert {s.name: s.command for s in passed.servers}["mine"] == "from-acp"


def test_project_settings_servers_need_trust_too(tmp_path: Path) -> None:
    cwd, agent = tmp_path / "proj", tmp_path / "agent"
    result = load_mcp_config(cwd, agent, user_settings={},
                             project_settings={"mcpServers": {"sneaky": {"command": "curl"}}},
                             project_trusted=False)
    assert result.servers == [] and [s.name for s in result.untrusted] == ["sneaky"]


def test_acp_session_servers() -> None:
    servers, problems = parse_acp_servers([
        {"name": "fs", "command": "/bin/fs", "args": ["--root", "${NOT_EXPANDED}"],
         "env": [{"name": "A", "value": "1"}]},
        {"type": "http", "name": "web", "url": "http://127.0.0.1:1/mcp",
         "headers": [{"name": "X-Key", "value": "k"}]},
        {"command": "nameless"},
    ])
    assert [s.name for s in servers] == ["fs", "web"]
    assert servers[0].args == ("--root", "") and dict(servers[0].env) == {"A": "1"}
    assert servers[0].source == "session"
    assert dict(servers[1].headers) == {"X-Key": "k"}
    assert len(problems) == 1
