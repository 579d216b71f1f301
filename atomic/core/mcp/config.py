"""MCP server configuration: the files users already have, `${VAR}` expansion, and trust filtering.

Sources, later wins per server name:
- `mcpServers` in the user's `<agent dir>/settings.json`          (source "settings", no trust needed)
- `<agent dir>/mcp.json`                                            (source "user", no trust needed)
- `mcpServers` in the project's `.atomic/settings.json`             (source "project", needs trust)
- the project's `.mcp.json` (Claude Code's file)                    (source "project", needs trust)
- servers passed by the frontend (e.g. ACP `session/new`, acp_servers.py) (source "session", no trust needed)

A server entry is Claude Code's shape: `{"command", "args", "env", "cwd"}` for stdio, or
`{"type": "http" | "sse", "url", "headers"}`; a per-server `timeout` (ms, for tool calls) and
`startupTimeout` (ms) are accepted. This module never imports the `mcp` SDK.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from atomic.core import jsonc
from atomic.core.mcp.sources import PROJECT_MCP_FILE, USER_MCP_FILE

McpTransport = Literal["stdio", "http", "sse"]
McpSource = Literal["settings", "user", "project", "session"]

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_HTTP_TYPES = {"http": "http", "streamable-http": "http", "streamablehttp": "http", "sse": "sse", "stdio": "stdio"}


@dataclass(frozen=True)
class McpServerConfig:
    """One MCP server to start. Build it directly to pass servers programmatically."""

    name: str
    transport: McpTransport = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    # Per-call and start-up limits in milliseconds; None uses the settings' defaults.
    timeout_ms: int | None = None
    startup_timeout_ms: int | None = None
    source: McpSource = "session"
    # The file the entry came from (None for programmatic servers).
    origin: Path | None = None
    # describe() as the file wrote it, `${VAR}` unexpanded: a secret the variable holds is never shown.
    as_written: str | None = None

    def describe(self) -> str:
        """What the server runs or reaches, for `/mcp`, `get_mcp_servers` and the trust dialog."""
        if self.as_written is not None:
            return self.as_written
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args]).strip()
        return f"{self.transport} {self.url}"


@dataclass
class ExpansionReport:
    missing: set[str] = field(default_factory=set)


def expand_vars(text: str, report: ExpansionReport, environ: Mapping[str, str] | None = None) -> str:
    """`${VAR}` and `${VAR:-default}`; an unset VAR without a default becomes "" and is reported."""
    env = os.environ if environ is None else environ

    def sub(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value:
            return value
        if default is not None:
            return default
        if value is None:
            report.missing.add(name)
        return ""

    return _VAR.sub(sub, text)


def _str_map(value: Any, what: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"{what} must be an object of strings")
    return {k: str(v) for k, v in value.items()}


def _limit(raw: dict[str, Any], key: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f'"{key}" must be a positive number of milliseconds')
    return int(value)


def parse_server(
    name: str,
    raw: Any,
    *,
    source: McpSource,
    origin: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[McpServerConfig, list[str]]:
    """One entry of an `mcpServers` object. Raises ValueError on a malformed entry.

    Returns the config and warnings (e.g. variables that were not set)."""
    if not isinstance(raw, dict):
        raise ValueError("must be an object")
    report = ExpansionReport()

    def ex(text: str) -> str:
        return expand_vars(text, report, environ)

    kind = raw.get("type")
    url = raw.get("url") or raw.get("httpUrl")
    if kind is None:
        transport = "stdio" if raw.get("command") else "http" if url else None
        if transport is None:
            raise ValueError('needs "command" (stdio) or "url" (http)')
    elif isinstance(kind, str) and kind.lower() in _HTTP_TYPES:
        transport = _HTTP_TYPES[kind.lower()]
    else:
        raise ValueError(f'unknown "type" {kind!r}; use "stdio", "http" or "sse"')
    timeout_ms = _limit(raw, "timeout")
    startup_ms = _limit(raw, "startupTimeout")
    if transport == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ValueError('a stdio server needs a "command" string')
        args = raw.get("args", [])
        if not isinstance(args, list):
            raise ValueError('"args" must be a list of strings')
        cwd = raw.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise ValueError('"cwd" must be a string')
        config = McpServerConfig(
            name=name,
            transport="stdio",
            command=ex(command),
            args=tuple(ex(str(a)) for a in args),
            env={k: ex(v) for k, v in _str_map(raw.get("env"), '"env"').items()},
            cwd=ex(cwd) if cwd else None,
            timeout_ms=timeout_ms,
            startup_timeout_ms=startup_ms,
            source=source,
            origin=origin,
            as_written=" ".join([command, *(str(a) for a in args)]).strip(),
        )
    else:
        if not isinstance(url, str) or not url.strip():
            raise ValueError(f'a {transport} server needs a "url" string')
        expanded = ex(url)
        if not expanded.startswith(("http://", "https://")):
            raise ValueError(f'"url" must start with http:// or https:// (got {expanded!r})')
        config = McpServerConfig(
            name=name,
            transport=transport,  # type: ignore[arg-type]
            url=expanded,
            headers={k: ex(v) for k, v in _str_map(raw.get("headers"), '"headers"').items()},
            timeout_ms=timeout_ms,
            startup_timeout_ms=startup_ms,
            source=source,
            origin=origin,
            as_written=f"{transport} {url}",
        )
    warnings = [f"MCP server {name}: ${{{var}}} is not set" for var in sorted(report.missing)]
    return config, warnings


def parse_servers(
    data: Any, *, source: McpSource, origin: Path | None = None, environ: Mapping[str, str] | None = None
) -> tuple[list[McpServerConfig], list[str]]:
    """An `mcpServers` object: the valid servers and one message per broken entry (which is skipped)."""
    where = str(origin) if origin else source
    if data is None:
        return [], []
    if not isinstance(data, dict):
        return [], [f'{where}: "mcpServers" must be an object; it is ignored']
    servers: list[McpServerConfig] = []
    problems: list[str] = []
    for name, raw in data.items():
        if not isinstance(name, str) or not name.strip():
            problems.append(f"{where}: an MCP server needs a non-empty name; skipped")
            continue
        try:
            config, warnings = parse_server(name, raw, source=source, origin=origin, environ=environ)
        except ValueError as exc:
            problems.append(f"{where}: MCP server {name!r} {exc}; skipped")
            continue
        servers.append(config)
        problems.extend(warnings)
    return servers, problems


def read_mcp_file(path: Path, source: McpSource) -> tuple[list[McpServerConfig], list[str]]:
    """`{"mcpServers": {...}}` from a file; a missing file is no servers, a broken one is reported."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"Could not read {path}: {exc}"]
    try:
        data = jsonc.loads(text)
    except ValueError as exc:
        return [], [f"{path} is not valid JSON ({exc}); its MCP servers are ignored"]
    if not isinstance(data, dict):
        return [], [f"{path} must hold a JSON object; its MCP servers are ignored"]
    return parse_servers(data.get("mcpServers"), source=source, origin=path)


@dataclass(frozen=True)
class ProjectMcpPolicy:
    """Claude Code's settings for `.mcp.json` servers."""

    enabled: tuple[str, ...] | None = None  # enabledMcpjsonServers: when set, only these
    disabled: tuple[str, ...] = ()  # disabledMcpjsonServers
    enable_all: bool = False  # enableAllProjectMcpServers: accepted; trust is what gates

    @classmethod
    def from_settings(cls, raw: Mapping[str, Any]) -> ProjectMcpPolicy:
        def names(value: Any) -> tuple[str, ...] | None:
            if isinstance(value, list):
                return tuple(v for v in value if isinstance(v, str))
            return None

        return cls(
            enabled=names(raw.get("enabledMcpjsonServers")),
            disabled=names(raw.get("disabledMcpjsonServers")) or (),
            enable_all=raw.get("enableAllProjectMcpServers") is True,
        )

    def allows(self, name: str) -> bool:
        if name in self.disabled:
            return False
        return self.enabled is None or name in self.enabled


@dataclass
class McpConfigResult:
    servers: list[McpServerConfig]
    # Project servers that were not started because the project is not trusted.
    untrusted: list[McpServerConfig]
    # Project servers turned off by disabledMcpjsonServers / enabledMcpjsonServers.
    disabled: list[McpServerConfig]
    problems: list[str]


def load_mcp_config(
    cwd: Path,
    agent_dir: Path,
    *,
    user_settings: Mapping[str, Any],
    project_settings: Mapping[str, Any],
    project_trusted: bool,
    extra: list[McpServerConfig] | None = None,
) -> McpConfigResult:
    """Every configured server, filtered by trust and the project policy (later source wins per name)."""
    problems: list[str] = []
    chosen: dict[str, McpServerConfig] = {}
    untrusted: list[McpServerConfig] = []
    disabled: list[McpServerConfig] = []

    def take(servers: list[McpServerConfig], found: list[str]) -> None:
        problems.extend(found)
        for server in servers:
            chosen[server.name] = server

    take(*parse_servers(user_settings.get("mcpServers"), source="settings", origin=agent_dir / "settings.json"))
    take(*read_mcp_file(agent_dir / USER_MCP_FILE, "user"))
    project_servers, project_problems = parse_servers(
        project_settings.get("mcpServers"), source="project", origin=cwd / ".atomic" / "settings.json"
    )
    file_servers, file_problems = read_mcp_file(cwd / PROJECT_MCP_FILE, "project")
    policy = ProjectMcpPolicy.from_settings({**user_settings, **project_settings})
    if project_trusted:
        problems.extend(project_problems + file_problems)
    for server in project_servers + file_servers:
        if not project_trusted:
            untrusted.append(server)
        elif not policy.allows(server.name):
            disabled.append(server)
        else:
            chosen[server.name] = server
    for server in extra or []:
        chosen[server.name] = server
    return McpConfigResult(list(chosen.values()), untrusted, disabled, problems)
