"""`engine.mcp`: the configured MCP servers, over the session's `McpManager` (none when nothing is
configured; a trust change may replace it, so each call looks it up again)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession
    from atomic.core.records import McpServerStatus


class McpView:
    """The servers' state, restarts and logins, and their resources as `@` mentions."""

    def __init__(self, session: AgentSession) -> None:
        self._s = session

    def resource_mentions(self) -> list[tuple[str, str]]:
        """`@server:uri` mentions of the resources the servers list, with a short description each
        (the TUI completes them; a prompt naming one gets the resource's content attached)."""
        manager = self._s.mcp
        return manager.resource_mentions() if manager is not None else []

    def servers(self) -> list[McpServerStatus]:
        """The configured servers and their state (empty when none is configured)."""
        manager = self._s.mcp
        return manager.states() if manager is not None else []

    async def reconnect(self, name: str) -> McpServerStatus | None:
        """Restart one server. Returns its new state; None when no server has that name."""
        manager = self._s.mcp
        if manager is None or name not in {s.name for s in manager.states()}:
            return None
        return await manager.reconnect(name)

    async def login(
        self, name: str, show_url: Callable[[str], None], paste_url: Callable[[], Awaitable[str | None]] | None = None
    ) -> McpServerStatus | None:
        """Log in to a remote server (OAuth): `show_url` gets the authorization URL to open; the code
        comes back to a local callback, or as a URL `paste_url` returns. Its new state; None when no
        server has that name. Raises ValueError for a server without a login (stdio)."""
        from atomic.core.mcp.oauth import LoginFlow

        manager = self._s.mcp
        if manager is None or name not in manager.connections:
            return None
        return await manager.login(name, LoginFlow(show_url, paste_url))

    async def wait_started(self) -> bool:
        """Wait until every server has connected or failed. True when some server was configured
        (its prompts may now be commands: a frontend lists `commands()` again)."""
        manager = self._s.mcp
        if manager is None or not manager.connections:
            return False
        await manager.wait_settled()
        return True

    def set_notice_sink(self, sink: Callable[[str], None]) -> None:
        """Where the servers' notices (failed start, tools changed) go; kept across trust changes."""
        self._s.mcp_notice_sink = sink
        if self._s.mcp is not None:
            self._s.mcp.set_notice_sink(sink)
