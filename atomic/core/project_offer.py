"""What a project folder brings: everything Atomic would load from it once the folder is trusted.

Used to tell the user what an untrusted project left out (the stderr line, RPC `get_state`) and to
name it in the TUI's first-run dialog. A folder that brings nothing starts without asking.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from atomic.core import jsonc
from atomic.core.extensions.discovery import project_extension_paths
from atomic.core.mcp.sources import PROJECT_MCP_FILE


@dataclass(frozen=True)
class McpOffer:
    name: str
    command: str  # what it runs (stdio) or reaches (http, sse)


@dataclass(frozen=True)
class ProjectOffer:
    """Every project resource the folder holds, by kind (paths are absolute)."""

    settings: Path | None = None
    extensions: tuple[Path, ...] = ()
    mcp_servers: tuple[McpOffer, ...] = ()
    skills: tuple[Path, ...] = ()
    prompt_templates: tuple[Path, ...] = ()
    context_files: tuple[Path, ...] = ()
    agents: tuple[Path, ...] = ()  # subagent definitions (.claude/agents, .atomic/agents)
    # `.atomic/SYSTEM.md` (replaces the system prompt) and `.atomic/APPEND_SYSTEM.md` (extends it).
    system_prompts: tuple[Path, ...] = ()

    @property
    def empty(self) -> bool:
        return not (
            self.settings
            or self.extensions
            or self.mcp_servers
            or self.skills
            or self.prompt_templates
            or self.context_files
            or self.agents
            or self.system_prompts
        )

    def items(self, show: Callable[[Path], str] = str) -> list[tuple[str, list[str]]]:
        """(kind, what) for each kind the folder brings, in the order the dialog names them;
        `show` turns a path into text (the dialog shortens them)."""
        groups = [
            ("extensions", [show(p) for p in self.extensions]),
            ("MCP servers", [f"{s.name}: {s.command}" for s in self.mcp_servers]),
            ("skills", [show(p) for p in self.skills]),
            ("prompt templates", [show(p) for p in self.prompt_templates]),
            ("context files", [show(p) for p in self.context_files]),
            ("agent definitions", [show(p) for p in self.agents]),
            ("system prompt files", [show(p) for p in self.system_prompts]),
            ("settings", [show(self.settings)] if self.settings else []),
        ]
        return [(kind, entries) for kind, entries in groups if entries]

    def skipped(self) -> list[str]:
        """One short label per kind, e.g. `2 extensions`, for one-line notices and `get_state`."""
        return [f"{len(entries)} {kind if len(entries) > 1 else _singular(kind)}" for kind, entries in self.items()]


def _singular(kind: str) -> str:
    return {"settings": "settings file", "MCP servers": "MCP server"}.get(kind, kind.rstrip("s"))


def _mcp_offers(settings: Path, mcp_file: Path) -> tuple[McpOffer, ...]:
    """The project's MCP servers, from its settings file and `.mcp.json` (either may be missing).
    The configuration parser is imported only when one of them names servers."""
    raw_servers = None
    if settings.is_file():
        try:
            data = jsonc.loads(settings.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict):
            raw_servers = data.get("mcpServers")
    if raw_servers is None and not mcp_file.exists():
        return ()
    from atomic.core.mcp.config import parse_servers, read_mcp_file

    servers = parse_servers(raw_servers, source="project", origin=settings)[0]
    servers += read_mcp_file(mcp_file, "project")[0]
    return tuple(McpOffer(s.name, s.describe()) for s in servers)


def project_offer(cwd: Path, agent_dir: Path) -> ProjectOffer:
    """Everything the folder at `cwd` would load if trusted. Reads files; runs nothing."""
    from atomic.core.resources.context_files import project_context_paths
    from atomic.core.resources.prompt_templates import project_template_files
    from atomic.core.resources.skills import project_skill_files
    from atomic.core.resources.system_prompt import project_system_files
    from atomic.core.subagents.definitions import project_agent_files

    cwd = cwd.resolve()
    settings = cwd / ".atomic" / "settings.json"
    return ProjectOffer(
        settings=settings if settings.is_file() else None,
        extensions=tuple(project_extension_paths(cwd)),
        mcp_servers=_mcp_offers(settings, cwd / PROJECT_MCP_FILE),
        skills=tuple(project_skill_files(cwd)),
        prompt_templates=tuple(project_template_files(cwd)),
        context_files=tuple(project_context_paths(cwd, agent_dir)),
        agents=tuple(project_agent_files(cwd)),
        system_prompts=tuple(project_system_files(cwd)),
    )
