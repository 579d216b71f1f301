"""One MCP server: connect with the official `mcp` SDK, list its tools, call them, restart after a crash.

The SDK costs about a second to import, so it is imported in a worker thread the first time a
server starts, never at start-up and never on the event loop. Each server is held open by its own
task (the SDK's transports are anyio task groups that must be entered and left by one task);
calls come from the agent's tool tasks. A stdio server's stderr goes to a log file in
`<agent dir>/logs/`, never to Atomic's stdout or the TUI.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from atomic import __version__
from atomic.core.mcp.config import McpServerConfig
from atomic.core.private_files import ensure_private_dir, open_private_append

McpStatus = Literal["starting", "connected", "failed", "crashed", "stopped"]
MISSING_SDK = "the MCP client is not installed: pip install 'atomic-agent[mcp]' (or pip install mcp)"
CONNECTION_CLOSED = -32000
LOG_LIMIT_BYTES = 1_000_000
# How long a call that changed the server's tools waits for their new list.
TOOLS_REFRESH_WAIT_S = 10.0

_sdk: Any = None
_sdk_lock: asyncio.Lock | None = None


class McpError(Exception):
    """A failure talking to an MCP server, worded for the model and the user."""


def sdk_installed() -> bool:
    return importlib.util.find_spec("mcp") is not None


def _import_sdk() -> Any:
    import mcp
    import mcp.client.sse
    import mcp.client.stdio
    import mcp.client.streamable_http
    import mcp.shared._httpx_utils

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


def describe_error(exc: BaseException) -> str:
    """The innermost useful message of an exception (the SDK wraps failures in exception groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip()
    if type(exc).__name__ == "MCPError":
        return text.split(", ", 1)[-1].strip("()'\"") if text.startswith("(") else text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_connection_loss(exc: BaseException) -> bool:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if type(exc).__name__ == "MCPError":
        return bool(exc.args) and exc.args[0] == CONNECTION_CLOSED
    # anyio's closed/broken stream errors, OS pipe errors and HTTP transport errors.
    return isinstance(exc, OSError | EOFError) or type(exc).__name__ in (
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
    )


@dataclass(frozen=True)
class McpToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]


class McpConnection:
    """The live state of one configured server."""

    def __init__(self, config: McpServerConfig, *, cwd: Path, log_dir: Path, startup_timeout_s: float) -> None:
        self.config = config
        self.cwd = cwd
        self.log_path = log_dir / f"mcp-{_safe_file_name(config.name)}.log"
        self.startup_timeout_s = startup_timeout_s
        self.status: McpStatus = "stopped"
        self.error: str | None = None
        self.tools: list[McpToolInfo] = []
        # Bumped whenever `tools` is replaced, so the manager rebuilds its tool objects.
        self.generation = 0
        # How often the server said its tools changed (`notifications/tools/list_changed`) and
        # the list was fetched again.
        self.tool_refreshes = 0
        self.server_name: str | None = None
        self.restarts = 0
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        # Set by the SDK's message handler; the serving task re-lists the tools. The handler runs in
        # the session's receive loop, which must stay free to deliver the `tools/list` answer.
        self._tools_changed = asyncio.Event()
        # Clear while a change is announced but not listed yet: a call that made the server change its
        # tools waits for the new list, so the agent's next request already offers them.
        self._tools_current = asyncio.Event()
        self._tools_current.set()
        self._log: IO[str] | None = None
        # Told when a start fails (the manager turns it into a one-line notice).
        self.on_failed: Callable[[McpConnection], None] | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def settled(self) -> bool:
        """Whether start-up is over (connected or failed): a prompt stops waiting for it."""
        return self._ready.is_set()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Connect in the background; `wait_ready` waits for the outcome."""
        if self._task is not None and not self._task.done():
            return
        self.status = "starting"
        self.error = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._tools_changed = asyncio.Event()
        self._tools_current.set()
        self._task = asyncio.ensure_future(self._serve())

    async def wait_ready(self, timeout_s: float | None = None) -> None:
        if self._ready.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._ready.wait()

    async def stop(self) -> None:
        task = self._task
        self._stop.set()
        if task is not None and not task.done():
            try:
                # The SDK's stdio shutdown is bounded (close stdin, then terminate, then kill).
                await asyncio.wait_for(asyncio.shield(task), 10)
            except (TimeoutError, asyncio.CancelledError):
                task.cancel()
            except Exception:
                pass
        self._task = None
        self._client = None
        if self.status in ("connected", "starting"):
            self.status = "stopped"

    async def restart(self) -> None:
        await self.stop()
        self.restarts += 1
        self.start()
        await self.wait_ready(self.startup_timeout_s + 1)

    async def _serve(self) -> None:
        try:
            sdk = await load_sdk()
            async with contextlib.AsyncExitStack() as stack:
                async with asyncio.timeout(self.startup_timeout_s) as deadline:
                    client = await stack.enter_async_context(self._client_for(sdk))
                    tools = await self._list_tools(client)
                    deadline.reschedule(None)
                info = client.server_info
                self.server_name = info.name if info is not None else None
                self.tools = tools
                self.generation += 1
                self._client = client
                self.status = "connected"
                self._ready.set()
                while await self._next_event():
                    await self._refresh_tools(client)
                    if not self._tools_changed.is_set():
                        self._tools_current.set()
        except asyncio.CancelledError:
            self.status = "stopped"
            raise
        except BaseException as exc:  # a broken server must never take the engine down
            if self._stop.is_set():
                return  # errors while closing a stopped or crashed server say nothing new
            if isinstance(exc, TimeoutError):
                self.error = f"did not start within {self.startup_timeout_s:g} s"
            else:
                self.error = describe_error(exc)
            self.status = "failed"
            self._write_log(f"failed: {self.error}")
            if self.on_failed is not None:
                self.on_failed(self)
        finally:
            self._client = None
            self._ready.set()
            self._tools_current.set()  # nothing will be listed any more; nobody waits for it
            if self._log is not None:
                self._log.close()
                self._log = None

    async def _next_event(self) -> bool:
        """Wait for a stop (False) or a tool-list change (True)."""
        if not self._stop.is_set() and not self._tools_changed.is_set():
            stop = asyncio.ensure_future(self._stop.wait())
            changed = asyncio.ensure_future(self._tools_changed.wait())
            try:
                await asyncio.wait((stop, changed), return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
                changed.cancel()
        if self._stop.is_set():
            return False
        self._tools_changed.clear()
        return True

    async def _refresh_tools(self, client: Any) -> None:
        # A failed re-list keeps the old tools: a call to a vanished tool gets the server's own error,
        # and a dead connection is noticed by the next call, which restarts the server.
        try:
            async with asyncio.timeout(self.startup_timeout_s):
                tools = await self._list_tools(client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._write_log(f"tools/list after tools/list_changed failed: {describe_error(exc)}")
            return
        self.tools = tools
        self.generation += 1
        self.tool_refreshes += 1
        self._write_log(f"tools changed: now {len(tools)} ({', '.join(t.name for t in tools)})")

    async def _on_message(self, message: Any) -> None:
        """The SDK's message handler: server notifications (and transport errors, ignored here)."""
        sdk = _sdk
        if sdk is not None and isinstance(message, sdk.types.ToolListChangedNotification):
            self._tools_current.clear()
            self._tools_changed.set()

    def _client_for(self, sdk: Any) -> Any:
        config = self.config
        info = sdk.types.Implementation(name="atomic", version=__version__)
        if config.transport == "stdio":
            self._log = self._open_log()
            params = sdk.StdioServerParameters(
                command=config.command or "",
                args=list(config.args),
                env=dict(config.env) or None,
                cwd=config.cwd or str(self.cwd),
            )
            transport = sdk.client.stdio.stdio_client(params, errlog=self._log)
        elif config.transport == "sse":
            transport = sdk.client.sse.sse_client(config.url or "", headers=dict(config.headers) or None)
        else:
            http = sdk.shared._httpx_utils.create_mcp_http_client(headers=dict(config.headers) or None)
            transport = sdk.client.streamable_http.streamable_http_client(config.url or "", http_client=http)
            client = sdk.Client(transport, mode="legacy", client_info=info, message_handler=self._on_message)
            return _OwnsHttpClient(client, http)
        # "legacy" is the initialize handshake every deployed server speaks; no discovery probe.
        return sdk.Client(transport, mode="legacy", client_info=info, message_handler=self._on_message)

    async def _list_tools(self, client: Any) -> list[McpToolInfo]:
        tools: list[McpToolInfo] = []
        cursor: str | None = None
        for _ in range(100):  # a server whose paging never ends cannot hang start-up
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
                tools.append(McpToolInfo(tool.name, tool.description or "", dict(schema)))
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    # ------------------------------------------------------------------ calls

    async def call(self, tool: str, arguments: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """Call a tool; the result as protocol JSON (`content`, `structuredContent`, `isError`).

        Raises McpError for a timeout, a lost connection or a protocol error. A server that crashed
        (or failed to start) is restarted first."""
        if self.status in ("crashed", "failed", "stopped"):
            await self.restart()
        elif self.status == "starting":
            await self.wait_ready(timeout_s)
        client = self._client
        if client is None or self.status != "connected":
            raise McpError(f"MCP server {self.name} is not available: {self.error or self.status}")
        try:
            async with asyncio.timeout(timeout_s):
                result = await client.call_tool(tool, arguments)
        except TimeoutError:
            raise McpError(f"MCP tool {tool} (server {self.name}) timed out after {timeout_s:g} s") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if _is_connection_loss(exc):
                await self._mark_crashed(describe_error(exc))
                raise McpError(
                    f"MCP server {self.name} stopped ({self.error}); it will be restarted on the next call"
                ) from None
            raise McpError(f"MCP server {self.name}: {describe_error(exc)}") from None
        if not self._tools_current.is_set():
            # The call changed the server's tools (the notification comes before the answer on the
            # same stream); wait briefly for the new list rather than offer a stale one next step.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(timeout_s, TOOLS_REFRESH_WAIT_S)):
                    await self._tools_current.wait()
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def _mark_crashed(self, reason: str) -> None:
        self.status = "crashed"
        self.error = f"connection lost: {reason}"
        self._write_log(self.error)
        task = self._task
        self._stop.set()
        if task is not None:
            # Leave the SDK's context in its own task; a dead process is reaped there.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(task), 10)
        self._task = None
        self.status = "crashed"

    # ------------------------------------------------------------------ logging

    def _open_log(self) -> IO[str]:
        ensure_private_dir(self.log_path.parent)
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > LOG_LIMIT_BYTES:
                self.log_path.replace(self.log_path.with_suffix(".log.1"))
        handle = open_private_append(self.log_path)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"--- {stamp} starting {self.config.describe()}\n")
        handle.flush()
        return handle

    def _write_log(self, line: str) -> None:
        with contextlib.suppress(OSError):
            with open_private_append(self.log_path) as handle:
                handle.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")


class _OwnsHttpClient(contextlib.AbstractAsyncContextManager[Any]):
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


def _safe_file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "server"
