"""All MCP servers of a session: background start, waiting at the first prompt, tools, state, notices."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from atomic.core.mcp.catalog import prompt_command
from atomic.core.mcp.config import McpConfigResult, McpServerConfig
from atomic.core.mcp.connection import MISSING_SDK, McpConnection, sdk_installed
from atomic.core.mcp.elicitation import Dialogs
from atomic.core.mcp.mentions import attach_mentions, expand_prompt_command, wants_expansion
from atomic.core.mcp.oauth import LoginFlow
from atomic.core.mcp.resource_tool import RESOURCE_TOOL_NAME, ReadMcpResource
from atomic.core.mcp.results import ResultLimits
from atomic.core.mcp.tools import McpTool, McpToolSearch
from atomic.core.messages import ImageContent
from atomic.core.records import CommandInfo, McpServerStatus
from atomic.core.tools.base import Tool

if TYPE_CHECKING:
    from atomic.core.settings import SettingsManager

# Deferral: when the MCP tool definitions would take more than this share of the context window,
# only the search tool is sent and tools are loaded on demand (Claude Code's 10% rule).
DEFER_SHARE = 0.10
# A prompt stops waiting for a starting server that shows no sign of progress for this long
# (progress.py): a hanging server must not hold it for the whole `promptWaitMs`.
STALL_S = 3.0
_POLL_S = 0.1


@dataclass(frozen=True)
class McpLimits:
    startup_timeout_s: float = 30.0
    tool_timeout_s: float = 120.0
    # How long a prompt waits for servers that are still starting.
    prompt_wait_s: float = 10.0
    # "auto": defer above DEFER_SHARE of the window; "always" / "never" force it.
    tool_search: Literal["auto", "always", "never"] = "auto"
    # What one tool result may put into the context (the rest goes to a temp file).
    result: ResultLimits = field(default_factory=ResultLimits)


class McpManager:
    def __init__(
        self,
        config: McpConfigResult,
        *,
        cwd: Path,
        agent_dir: Path,
        limits: McpLimits | None = None,
    ) -> None:
        self.limits = limits or McpLimits()
        self.untrusted = list(config.untrusted)
        self.disabled = list(config.disabled)
        self.problems = list(config.problems)
        log_dir = agent_dir / "logs"
        self.connections: dict[str, McpConnection] = {
            s.name: McpConnection(s, cwd=cwd, log_dir=log_dir, startup_timeout_s=self._startup_s(s))
            for s in config.servers
        }
        self.loaded: set[str] = set()
        self._tools: dict[str, McpTool] = {}
        self._tools_key: tuple[tuple[str, int], ...] = ()
        self._search = McpToolSearch(self.all_tools, self._load)
        self._resource_tool = ReadMcpResource(
            lambda: self.connections, lambda: self.limits.tool_timeout_s, lambda: self.limits.result
        )
        self._notices: list[str] = []
        self._sink: Callable[[str], None] | None = None
        self.deferred = False
        # Skipped project servers are announced with the rest of the project (engine/project_trust.py).
        self.notice(*self.problems)

    def _startup_s(self, server: McpServerConfig) -> float:
        return server.startup_timeout_ms / 1000 if server.startup_timeout_ms else self.limits.startup_timeout_s

    # ------------------------------------------------------------------ notices

    def notice(self, *lines: str) -> None:
        for line in lines:
            if self._sink is not None:
                self._sink(line)
            else:
                self._notices.append(line)

    def set_notice_sink(self, sink: Callable[[str], None]) -> None:
        """Where one-line notices go (stderr in non-interactive modes); buffered ones are sent now."""
        self._sink = sink
        pending, self._notices = self._notices, []
        for line in pending:
            sink(line)

    def pending_notices(self) -> list[str]:
        return list(self._notices)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start every server in the background (returns at once; nothing is imported here)."""
        if not self.connections:
            return
        if not sdk_installed():
            for conn in self.connections.values():
                conn.status, conn.error = "failed", MISSING_SDK
            self.notice(f"MCP servers not started ({', '.join(self.connections)}): {MISSING_SDK}")
            return
        for conn in self.connections.values():
            conn.on_failed = self._report_failure
            conn.start()

    def set_dialogs(self, dialogs: Dialogs | None) -> None:
        """Where servers' questions (elicitation) are asked: the session's extension UI."""
        for conn in self.connections.values():
            conn.dialogs = dialogs

    def _report_failure(self, conn: McpConnection) -> None:
        log = f" (log: {conn.log_path})" if conn.config.transport == "stdio" else ""
        self.notice(f"MCP server {conn.name} failed to start: {conn.error}{log}")

    @property
    def starting(self) -> bool:
        return any(c.status == "starting" and not c.settled for c in self.connections.values())

    async def wait_ready(self, limit_s: float | None = None, stall_s: float = STALL_S) -> None:
        """Wait (up to the prompt wait limit) for servers still starting, so their tools are offered.

        Only while some of them are getting somewhere: when none has shown progress for `stall_s`
        (a hanging server), the prompt goes on with the tools it has."""
        pending = [c for c in self.connections.values() if c.status == "starting" and not c.settled]
        if not pending:
            return
        limit = self.limits.prompt_wait_s if limit_s is None else limit_s
        deadline = time.monotonic() + limit
        seen = {c.name: (c.progress_marker(), time.monotonic()) for c in pending}
        while True:
            pending = [c for c in pending if not c.settled]
            now = time.monotonic()
            if not pending or now >= deadline:
                return
            moving = False
            for conn in pending:
                marker = conn.progress_marker()
                last, since = seen[conn.name]
                if marker != last:
                    seen[conn.name] = (marker, now)
                    moving = True
                elif now - since < stall_s:
                    moving = True
            if not moving:
                return
            waiters = [asyncio.ensure_future(c.wait_ready()) for c in pending]
            try:
                await asyncio.wait(waiters, timeout=min(_POLL_S, max(0.0, deadline - now)),
                                   return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()

    async def login(self, name: str, flow: LoginFlow) -> McpServerStatus:
        """The interactive OAuth login of a remote server (oauth.py), then its state."""
        conn = self.connections.get(name)
        if conn is None:
            raise KeyError(f"No MCP server named {name!r}")
        if conn.config.transport == "stdio":
            raise ValueError(f"MCP server {name} runs locally (stdio): it has no login")
        if not sdk_installed():
            conn.status, conn.error = "failed", MISSING_SDK
        else:
            await conn.login(flow)
        return self._state(conn)

    async def wait_settled(self) -> None:
        """Wait until no server is starting any more (each within its start-up limit)."""
        await asyncio.gather(*(c.wait_ready(c.startup_timeout_s + 1) for c in self.connections.values()))

    async def reconnect(self, name: str) -> McpServerStatus:
        conn = self.connections.get(name)
        if conn is None:
            # An untrusted or disabled server is not started by a reconnect; its state says why.
            for state in self.states():
                if state.name == name:
                    return state
            raise KeyError(f"No MCP server named {name!r}")
        if not sdk_installed():
            conn.status, conn.error = "failed", MISSING_SDK
        else:
            await conn.restart()
        return self._state(conn)

    async def shutdown(self) -> None:
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    # ------------------------------------------------------------------ tools

    def all_tools(self) -> list[McpTool]:
        key = tuple((c.name, c.generation) for c in self.connections.values())
        if key != self._tools_key:
            fresh: dict[str, McpTool] = {}
            for conn in self.connections.values():
                for info in conn.tools:
                    tool = McpTool(conn, info, lambda: self.limits.tool_timeout_s, lambda: self.limits.result)
                    fresh.setdefault(tool.name, tool)
            self._tools, self._tools_key = fresh, key
        # A crashed server keeps its tools: calling one restarts it.
        return list(self._tools.values())

    def _load(self, names: list[str]) -> None:
        self.loaded.update(names)

    def has_resources(self) -> bool:
        return any(c.resources for c in self.connections.values())

    def resource_mentions(self) -> list[tuple[str, str]]:
        """(`@server:uri`, what it is) for every resource a connected server listed, for completion."""
        found: list[tuple[str, str]] = []
        for conn in self.connections.values():
            for resource in conn.resources:
                label = resource.name if resource.name and resource.name != resource.uri else ""
                found.append((f"@{conn.name}:{resource.uri}", " · ".join(p for p in (label, resource.description) if p)))
        return found

    def request_tools(self, context_window: int | None) -> list[Tool]:
        """The MCP tools to send with a request: all of them, or the search tool plus the loaded ones;
        and `read_mcp_resource` while some server has resources."""
        extra: list[Tool] = [self._resource_tool] if self.has_resources() else []
        return self._server_tools(context_window) + extra

    def _server_tools(self, context_window: int | None) -> list[Tool]:
        tools = self.all_tools()
        if not tools:
            self.deferred = False
            return []
        mode = self.limits.tool_search
        if mode == "never":
            self.deferred = False
        elif mode == "always":
            self.deferred = True
        else:
            size = sum(t.estimated_tokens() for t in tools)
            self.deferred = bool(context_window) and size > DEFER_SHARE * (context_window or 0)
        if not self.deferred:
            return list(tools)
        return [self._search, *(t for t in tools if t.name in self.loaded)]

    def find_tool(self, name: str) -> Tool | None:
        if name == self._search.name and self.deferred:
            return self._search
        if name == RESOURCE_TOOL_NAME and self.has_resources():
            return self._resource_tool
        self.all_tools()
        return self._tools.get(name)

    # ------------------------------------------------------------------ prompts and resources

    def commands(self) -> list[CommandInfo]:
        """`get_commands` entries for the servers' prompts (source "mcp")."""
        items: list[CommandInfo] = []
        for conn in self.connections.values():
            for prompt in conn.prompts:
                usage = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)
                description = prompt.description or f"Prompt {prompt.name} of MCP server {conn.name}"
                name = prompt_command(conn.name, prompt.name)
                items.append(CommandInfo(name, f"{description} {usage}".strip(), "mcp", None, conn.name))
        return items

    async def expand_input(
        self, text: str, images: list[ImageContent], *, session_id: str | None, supports_images: bool
    ) -> tuple[str, list[ImageContent]]:
        """A prompt's `/mcp__server__prompt` command and `@server:uri` mentions (mentions.py).
        Raises mentions.PromptCommandError for a prompt command that cannot run."""
        if not wants_expansion(text, self.connections):
            return text, images
        await self.wait_ready()
        timeout = self.limits.tool_timeout_s
        text = await expand_prompt_command(text, self.connections, timeout)
        return await attach_mentions(text, images, self.connections, timeout_s=timeout, limits=self.limits.result,
                                     session_id=session_id, supports_images=supports_images)

    # ------------------------------------------------------------------ state

    def _state(self, conn: McpConnection) -> McpServerStatus:
        tools = [t.name for t in self.all_tools() if t.connection is conn]
        return McpServerStatus(
            name=conn.name,
            source=conn.config.source,
            transport=conn.config.transport,
            target=conn.config.describe(),
            status=conn.status,
            error=conn.error,
            tools=tuple(tools),
            server_name=conn.server_name,
            log_path=str(conn.log_path) if conn.config.transport == "stdio" else None,
            restarts=conn.restarts,
            deferred=self.deferred,
            session_renewals=conn.session_renewals,
        )

    def states(self) -> list[McpServerStatus]:
        out = [self._state(c) for c in self.connections.values()]
        for status, servers in (("untrusted", self.untrusted), ("disabled", self.disabled)):
            for s in servers:
                out.append(
                    McpServerStatus(
                        name=s.name, source=s.source, transport=s.transport, target=s.describe(), status=status,
                        error=None, tools=(), server_name=None, log_path=None, restarts=0, deferred=False,
                    )
                )
        return out


def create_mcp_manager(config: McpConfigResult, cwd: Path, agent_dir: Path, settings: SettingsManager) -> McpManager:
    """The session's MCP servers from their configuration (not started yet), with the settings' limits."""
    s = settings.settings.mcp
    limits = McpLimits(
        startup_timeout_s=s.startup_timeout_ms / 1000,
        tool_timeout_s=s.tool_timeout_ms / 1000,
        prompt_wait_s=s.prompt_wait_ms / 1000,
        tool_search=s.tool_search,
        result=ResultLimits(max_bytes=s.max_result_bytes, max_lines=s.max_result_lines),
    )
    return McpManager(config, cwd=cwd, agent_dir=agent_dir, limits=limits)
