"""Building the contract's records from what the engine holds (its dicts and internal objects).

Kept apart from `engine.py` so the facade reads as the list of what a frontend may do.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.records import (
    AuthStatus,
    CommandInfo,
    ContextUsage,
    McpServerStatus,
    SessionSummary,
    TokenTotals,
)

if TYPE_CHECKING:
    from atomic.core.mcp.manager import McpServerState
    from atomic.core.session.listing import SessionInfo


def auth_status(data: dict[str, Any]) -> AuthStatus:
    """From the registry's `{"configured", "source"?, "label"?}`."""
    source = data.get("source")
    label = data.get("label")
    return AuthStatus(
        configured=bool(data.get("configured")),
        source=source if isinstance(source, str) else None,
        label=label if isinstance(label, str) else None,
    )


def context_usage(data: dict[str, Any] | None) -> ContextUsage | None:
    if data is None:
        return None
    return ContextUsage(tokens=data["tokens"], context_window=data["contextWindow"], percent=data["percent"])


def token_totals(data: dict[str, Any]) -> TokenTotals:
    return TokenTotals(
        input=int(data.get("input", 0)),
        output=int(data.get("output", 0)),
        cache_read=int(data.get("cacheRead", 0)),
        cache_write=int(data.get("cacheWrite", 0)),
    )


def command_info(item: dict[str, Any]) -> CommandInfo:
    """From an extension's `command_items()` entry or a resource catalog's `commands()` entry."""
    description = item.get("description")
    path = item.get("path")
    location = item.get("location")
    return CommandInfo(
        name=str(item["name"]),
        description=description if isinstance(description, str) else None,
        source=item["source"],
        path=path if isinstance(path, str) else None,
        location=location if isinstance(location, str) else None,
    )


def mcp_status(state: McpServerState) -> McpServerStatus:
    return McpServerStatus(
        name=state.name,
        source=state.source,
        transport=state.transport,
        target=state.target,
        status=state.status,
        error=state.error,
        tools=tuple(state.tools),
        server_name=state.server_name,
        log_path=state.log_path,
        restarts=state.restarts,
        deferred=state.deferred,
        session_renewals=state.session_renewals,
    )


def session_summary(info: SessionInfo) -> SessionSummary:
    return SessionSummary(
        path=Path(info.path),
        id=info.id,
        cwd=info.cwd,
        created=info.created,
        modified=info.modified,
        size=info.size,
        first_message=info.first_message,
        name=info.name,
    )
