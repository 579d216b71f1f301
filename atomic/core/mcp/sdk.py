"""The `mcp` SDK, imported once in a worker thread, and the small adapters Atomic puts around it.

The SDK costs about a second to import, so it is imported the first time a server starts, never
at start-up and never on the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
from typing import Any

from atomic.core.mcp.errors import McpError
from atomic.core.mcp.transport_watch import install_spawn_hook

MISSING_SDK = "the MCP client is not installed: pip install 'atomic-agent[mcp]' (or pip install mcp)"

_sdk: Any = None
_sdk_lock: asyncio.Lock | None = None


def sdk_installed() -> bool:
    return importlib.util.find_spec("mcp") is not None


def _import_sdk() -> Any:
    import mcp
    import mcp.client.auth
    import mcp.client.sse
    import mcp.client.stdio
    import mcp.client.streamable_http
    import mcp.shared._httpx_utils
    import mcp.shared.auth

    install_spawn_hook(mcp.client.stdio)
    # The SDK logs through `logging`; without a handler Python's last-resort handler would print
    # warnings on stderr, into the TUI. They go nowhere unless a log file is attached.
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    logging.getLogger("mcp").propagate = False
    return mcp


async def load_sdk() -> Any:
    """The `mcp` package, imported once in a worker thread. Raises McpError when it is missing."""
    global _sdk, _sdk_lock
    if _sdk is not None:
        return _sdk
    if _sdk_lock is None:
        _sdk_lock = asyncio.Lock()
    async with _sdk_lock:
        if _sdk is None:
            if not sdk_installed():
                raise McpError(MISSING_SDK)
            _sdk = await asyncio.to_thread(_import_sdk)
    return _sdk



def loaded_sdk() -> Any:
    """The SDK if a server has loaded it already, else None (never imports)."""
    return _sdk


def needs_tasks(tool: Any) -> bool:
    # A tool that runs only as an MCP task cannot be called without task support, which Atomic lacks.
    execution = tool.execution
    return execution is not None and execution.task_support == "required"


class OwnsHttpClient(contextlib.AbstractAsyncContextManager[Any]):
    """Enter the MCP client, and close the HTTP client we made for its headers afterwards."""

    def __init__(self, client: Any, http: Any) -> None:
        self.client = client
        self.http = http

    async def __aenter__(self) -> Any:
        await self.http.__aenter__()
        try:
            return await self.client.__aenter__()
        except BaseException:
            await self.http.__aexit__(None, None, None)
            raise

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.client.__aexit__(*exc)
        finally:
            await self.http.__aexit__(None, None, None)
