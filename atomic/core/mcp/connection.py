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
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from atomic import __version__
from atomic.core.mcp.catalog import McpPromptInfo, McpResourceInfo, list_prompts, list_resources
from atomic.core.mcp.config import McpServerConfig
from atomic.core.mcp.elicitation import Dialogs, elicitation_handler
from atomic.core.mcp.errors import McpError
from atomic.core.mcp.failures import (
    bad_output,
    describe_error,
    exit_detail,
    innermost,
    is_connection_loss,
    last_stderr_line,
    session_expired,
)
from atomic.core.mcp.oauth import TOKEN_FILE, LoginFlow, TokenFile, oauth_provider
from atomic.core.mcp.progress import file_size, process_cpu_ticks
from atomic.core.mcp.sdk import MISSING_SDK, OwnsHttpClient, load_sdk, loaded_sdk, needs_tasks, sdk_installed
from atomic.core.mcp.transport_watch import capture_spawned, watch_streams, watched_http_transport
from atomic.core.private_files import ensure_private_dir, open_private_append

__all__ = ["MISSING_SDK", "McpConnection", "McpError", "McpStatus", "McpToolInfo", "sdk_installed"]

McpStatus = Literal["starting", "connected", "failed", "crashed", "stopped", "reconnecting", "needs login"]
# The redirect URI a background start registers with; a login registers again with its own.
_NO_CALLBACK = "http://127.0.0.1/callback"
LOG_LIMIT_BYTES = 1_000_000
# How long a call that changed the server's tools waits for their new list.
TOOLS_REFRESH_WAIT_S = 10.0
# How long a stop waits for the SDK's own shutdown (close stdin, 2 s, terminate, kill) before it
# cancels the serving task, and then for the cancellation; a child still alive after that is killed.
STOP_GRACE_S = 4.0
STOP_CANCEL_WAIT_S = 3.0

@dataclass(frozen=True)
class McpToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]


# Told (done, total, message) for each notifications/progress of a running call.
ProgressSink = Callable[[float, float | None, str | None], None]


class _SessionExpired(Exception):
    """The remote server no longer knows the session: initialize again and retry the call once."""


class McpConnection:
    """The live state of one configured server."""

    def __init__(
        self, config: McpServerConfig, *, cwd: Path, log_dir: Path, startup_timeout_s: float,
        token_path: Path | None = None,
    ) -> None:
        self.config = config
        # OAuth tokens of remote servers (oauth.py); beside the logs' folder, in the agent dir.
        self.token_path = token_path or log_dir.parent / TOKEN_FILE
        self.needs_login = False
        self._login: LoginFlow | None = None
        self._renewing = False  # a new session for a server that forgot ours: status "reconnecting"
        self.cwd = cwd
        self.log_path = log_dir / f"mcp-{_safe_file_name(config.name)}.log"
        self.startup_timeout_s = startup_timeout_s
        self.status: McpStatus = "stopped"
        self.error: str | None = None
        self.tools: list[McpToolInfo] = []
        self.resources: list[McpResourceInfo] = []
        self.prompts: list[McpPromptInfo] = []
        # Bumped whenever `tools` is replaced, so the manager rebuilds its tool objects.
        self.generation = 0
        # How often the server said its tools changed (`notifications/tools/list_changed`) and
        # the list was fetched again.
        self.tool_refreshes = 0
        self.server_name: str | None = None
        self.restarts = 0
        # How often a remote server had forgotten the session and a call initialized it again.
        self.session_renewals = 0
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
        # Set when the transport ends (stdio EOF, the SSE stream closed, HTTP refused) while connected.
        self._transport_ended = asyncio.Event()
        self._log: IO[str] | None = None
        self._log_start = 0  # where this start's stderr begins in the log
        self._process: Any = None  # the stdio server's process (anyio), once spawned
        self._http: Any = None  # the watched HTTP transport of a remote server
        self._bad_output: str | None = None
        self._activity = 0  # messages received and HTTP answers: signs of a server getting somewhere
        # Told when a start fails (the manager turns it into a one-line notice).
        self.on_failed: Callable[[McpConnection], None] | None = None
        # How a server's questions (elicitation) reach the user: the session's extension UI.
        self.dialogs: Dialogs | None = None

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def settled(self) -> bool:
        """Whether start-up is over (connected or failed): a prompt stops waiting for it."""
        return self._ready.is_set()

    @property
    def pid(self) -> int | None:
        """The stdio server's process id while it runs (None for remote servers)."""
        process = self._process
        return int(process.pid) if process is not None and process.returncode is None else None

    def progress_marker(self) -> tuple[object, ...]:
        """Changes while a starting server is getting somewhere (progress.py)."""
        if self.config.transport == "stdio" and self._process is None:
            return (time.monotonic(),)  # Atomic is still loading the SDK or spawning: our own work
        pid = self._process.pid if self._process is not None else None
        return (process_cpu_ticks(pid), file_size(self.log_path), self._activity)

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Connect in the background; `wait_ready` waits for the outcome."""
        if self._task is not None and not self._task.done():
            return
        self.status = "reconnecting" if self._renewing else "starting"
        self.error = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._tools_changed = asyncio.Event()
        self._transport_ended = asyncio.Event()
        self._tools_current.set()
        self._process = None
        self._http = None
        self._bad_output = None
        self.needs_login = False
        self._task = asyncio.ensure_future(self._serve())

    async def wait_ready(self, timeout_s: float | None = None) -> None:
        if self._ready.is_set():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout_s):
                await self._ready.wait()

    async def stop(self) -> None:
        """Stop the server, bounded: a server still in its handshake is killed and its task cancelled;
        a connected one gets the SDK's shutdown (close stdin, terminate, kill) and then the same."""
        task = self._task
        self._stop.set()
        if task is not None and not task.done():
            if not self._ready.is_set():
                self._kill_child()
                task.cancel()
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE_S)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=STOP_CANCEL_WAIT_S)
        self._kill_child()
        self._task = None
        self._client = None
        if self.status in ("connected", "starting", "reconnecting"):
            self.status = "stopped"

    def _kill_child(self) -> None:
        process = self._process
        if process is None or process.returncode is not None:
            return
        # The SDK starts each server in its own process group: end the whole tree.
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(OSError, ProcessLookupError):
            process.kill()

    async def restart(self) -> None:
        await self.stop()
        self.restarts += 1
        self.start()
        await self.wait_ready((self._login.timeout_s if self._login is not None else self.startup_timeout_s) + 1)

    async def _serve(self) -> None:
        try:
            sdk = await load_sdk()
            async with contextlib.AsyncExitStack() as stack:
                # A login waits for the user in a browser, not for a server starting.
                limit = self._login.timeout_s if self._login is not None else self.startup_timeout_s
                async with asyncio.timeout(limit) as deadline:
                    with capture_spawned(self._on_spawned):
                        client = await stack.enter_async_context(self._client_for(sdk))
                    tools = await self._list_tools(client)
                    await self._list_catalog(client)
                    deadline.reschedule(None)
                info = client.server_info
                self.server_name = info.name if info is not None else None
                self.tools = tools
                self.generation += 1
                self._client = client
                self.status = "connected"
                self._ready.set()
                while (event := await self._next_event()) is not None:
                    if event == "ended":
                        await self._lost_while_idle()
                        break
                    await self._refresh_tools(client)
                    if not self._tools_changed.is_set():
                        self._tools_current.set()
        except asyncio.CancelledError:
            if self.status != "crashed":
                self.status = "stopped"
            raise
        except BaseException as exc:  # a broken server must never take the engine down
            if self._stop.is_set():
                return  # errors while closing a stopped or crashed server say nothing new
            self.error = await self._start_failure(exc)
            self.status = "needs login" if self.needs_login else "failed"
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

    def _on_spawned(self, process: Any) -> None:
        self._process = process

    async def _exit_code(self, wait_s: float = 1.0) -> int | None:
        """The stdio server's exit code once it is gone (waiting briefly for it to be reaped)."""
        process = self._process
        if process is None:
            return None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait_s):
                while process.returncode is None:
                    await asyncio.sleep(0.02)
        code: int | None = process.returncode
        return code

    async def _start_failure(self, exc: BaseException) -> str:
        """Today's words for a failed start, with what explains it."""
        if self.needs_login:
            return f"needs login: run `atomic mcp login {self.name}` (or /mcp, then l, in the TUI)"
        if isinstance(exc, TimeoutError):
            text = f"did not start within {self.startup_timeout_s:g} s"
            return f"{text}: {self._bad_output}" if self._bad_output else text
        reason = describe_error(exc)
        if self._http is not None and self._http.saw_unauthorized:
            # Without usable OAuth metadata the SDK's login attempt says why it could not start.
            oauth = type(innermost(exc)).__name__.startswith("OAuth")
            return f"needs authentication (HTTP 401): {reason}" if oauth else "needs authentication (HTTP 401)"
        code = await self._exit_code()
        if code is not None:
            return f"{reason}: {exit_detail(code, last_stderr_line(self.log_path, self._log_start))}"
        if self._bad_output:
            return f"{reason}: {self._bad_output}"
        return reason

    async def _lost_while_idle(self) -> None:
        """The transport ended with no call running: crashed now, restarted by the next call."""
        self._stop.set()  # leaving the SDK's context below may raise; nothing new to report
        self._client = None
        # The exit code first, then status and error together: a reader never sees "crashed" with
        # the vaguer words that the code would have replaced a moment later.
        code = await self._exit_code(1.0) if self._process is not None else None
        if code is not None:
            self.error = f"connection lost: {exit_detail(code, last_stderr_line(self.log_path, self._log_start))}"
        else:
            self.error = "connection lost: the server closed the connection"
        self.status = "crashed"
        self._write_log(self.error)

    async def _next_event(self) -> str | None:
        """Wait for a stop (None), a tool-list change ("tools") or the transport's end ("ended")."""
        events = (self._stop, self._tools_changed, self._transport_ended)
        if not any(e.is_set() for e in events):
            waiters = [asyncio.ensure_future(e.wait()) for e in events]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
        if self._stop.is_set():
            return None
        if self._transport_ended.is_set():
            return "ended"
        self._tools_changed.clear()
        return "tools"

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
        """The SDK's message handler: server notifications, and transport errors (a bad stdout line)."""
        self._activity += 1
        sdk = loaded_sdk()
        if sdk is not None and isinstance(message, sdk.types.ToolListChangedNotification):
            self._tools_current.clear()
            self._tools_changed.set()
        elif isinstance(message, Exception) and self._bad_output is None:
            self._bad_output = bad_output(message)
            self._write_log(self._bad_output)

    def _on_stream_item(self, _item: Any) -> None:
        self._activity += 1

    def _on_stream_end(self) -> None:
        if self.status == "connected" and not self._stop.is_set():
            self._transport_ended.set()

    def _on_http_answer(self) -> None:
        self._activity += 1

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
            transport = sdk.client.sse.sse_client(config.url or "", headers=dict(config.headers) or None,
                                                  auth=self._oauth(sdk))
        else:
            http = self._http_client(sdk)
            transport = sdk.client.streamable_http.streamable_http_client(config.url or "", http_client=http)
            watched = watch_streams(transport, on_item=self._on_stream_item, on_end=self._on_stream_end)
            return OwnsHttpClient(self._sdk_client(sdk, watched, info), http)
        watched = watch_streams(transport, on_item=self._on_stream_item, on_end=self._on_stream_end)
        return self._sdk_client(sdk, watched, info)

    def _sdk_client(self, sdk: Any, transport: Any, info: Any) -> Any:
        # "legacy" is the initialize handshake every deployed server speaks; no discovery probe.
        # Elicitation (form mode) goes to the user's dialogs; the roots are the session's folder.
        # No sampling callback: the SDK then tells a server that asks that sampling is not supported.
        return sdk.Client(
            transport, mode="legacy", client_info=info, message_handler=self._on_message,
            logging_callback=self._on_server_log,
            elicitation_callback=elicitation_handler(sdk, lambda: self.dialogs, self.name),
            list_roots_callback=self._list_roots,
        )

    async def _list_roots(self, _context: Any) -> Any:
        types = loaded_sdk().types
        folder = Path(self.config.cwd or self.cwd).resolve()
        return types.ListRootsResult(roots=[types.Root(uri=folder.as_uri(), name=folder.name or str(folder))])

    async def _on_server_log(self, params: Any) -> None:
        """A server's notifications/message: into its log file, never onto a screen or stdout."""
        self._activity += 1
        source = f" {params.logger}" if params.logger else ""
        data = params.data if isinstance(params.data, str) else json.dumps(params.data, ensure_ascii=False)
        self._write_log(f"[{params.level}{source}] {data[:4000]}")

    def _http_client(self, sdk: Any) -> Any:
        import httpx2

        # The SDK's client factory with our transport under it (the same timeouts as the SDK's).
        utils = sdk.shared._httpx_utils
        self._http = watched_http_transport(httpx2, self._on_http_refused, self._on_http_answer)
        return httpx2.AsyncClient(
            headers=dict(self.config.headers) or None,
            timeout=httpx2.Timeout(utils.MCP_DEFAULT_TIMEOUT, read=utils.MCP_DEFAULT_SSE_READ_TIMEOUT),
            transport=self._http,
            auth=self._oauth(sdk),
        )

    def _oauth(self, sdk: Any) -> Any:
        """The SDK's OAuth for a remote server, unless its configuration sends its own Authorization."""
        if any(k.lower() == "authorization" for k in self.config.headers):
            return None

        def login_needed() -> None:
            self.needs_login = True

        flow = self._login
        store = TokenFile(self.token_path, self.config.url or "", sdk)
        redirect = flow.redirect_uri if flow is not None else _NO_CALLBACK
        return oauth_provider(sdk, self.config.url or "", store, flow, login_needed, redirect)

    async def login(self, flow: LoginFlow) -> None:
        """Run the interactive OAuth flow (`atomic mcp login`): start over, then connect."""
        sdk = await load_sdk()
        TokenFile(self.token_path, self.config.url or "", sdk).forget()
        await flow.open()
        self._login = flow
        try:
            await self.restart()
        finally:
            self._login = None
            await flow.close()

    def _on_http_refused(self) -> None:
        # The server is gone (the SDK's GET stream tries to reconnect and is refused).
        self._on_stream_end()

    async def _list_catalog(self, client: Any) -> None:
        """Resources and prompts, when the server offers them; a failure here only loses those."""
        capabilities = client.server_capabilities
        if capabilities.resources is not None:
            self.resources = await self._listed("resources", list_resources(client)) or []
        if capabilities.prompts is not None:
            self.prompts = await self._listed("prompts", list_prompts(client)) or []

    async def _listed(self, kind: str, listing: Any) -> Any:
        try:
            return await listing
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._write_log(f"{kind}/list failed: {describe_error(exc)}")
            return None

    async def _list_tools(self, client: Any) -> list[McpToolInfo]:
        tools: list[McpToolInfo] = []
        cursor: str | None = None
        for _ in range(100):  # a server whose paging never ends cannot hang start-up
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                if needs_tasks(tool):
                    continue
                schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
                tools.append(McpToolInfo(tool.name, tool.description or "", dict(schema)))
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    # ------------------------------------------------------------------ calls

    async def call(
        self, tool: str, arguments: dict[str, Any], timeout_s: float, on_progress: ProgressSink | None = None
    ) -> dict[str, Any]:
        """Call a tool; the result as protocol JSON (`content`, `structuredContent`, `isError`).

        Raises McpError for a timeout, a lost connection or a protocol error. A server that crashed
        (or failed to start) is restarted first. When a remote server answers that it no longer
        knows the session (it restarted), the session is initialized again and the call retried once.
        """
        client = await self._ready_client(timeout_s)
        try:
            return await self._call_once(client, tool, arguments, timeout_s, on_progress)
        except _SessionExpired:
            self._write_log("the server no longer knows the session: initializing again")
            self.session_renewals += 1
            self._renewing = True
            try:
                await self.restart()
            finally:
                self._renewing = False
            client = self._available_client()
            try:
                return await self._call_once(client, tool, arguments, timeout_s, on_progress)
            except _SessionExpired:
                raise McpError(f"MCP server {self.name}: the session expired again right after it was renewed") from None

    async def read_resource(self, uri: str, timeout_s: float) -> dict[str, Any]:
        """`resources/read`: the result as protocol JSON. Raises McpError."""
        client = await self._ready_client(timeout_s)
        result = await self._request(client, f"reading {uri}", timeout_s, client.read_resource(uri))
        return result

    async def get_prompt(self, name: str, arguments: dict[str, str], timeout_s: float) -> dict[str, Any]:
        """`prompts/get`: the result as protocol JSON. Raises McpError."""
        client = await self._ready_client(timeout_s)
        return await self._request(client, f"prompt {name}", timeout_s, client.get_prompt(name, arguments))

    async def _request(self, client: Any, what: str, timeout_s: float, request: Any) -> dict[str, Any]:
        try:
            async with asyncio.timeout(timeout_s):
                result = await request
        except TimeoutError:
            raise McpError(f"MCP server {self.name}: {what} timed out after {timeout_s:g} s") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise McpError(f"MCP server {self.name}: {what}: {describe_error(exc)}") from None
        dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    async def _ready_client(self, timeout_s: float) -> Any:
        if self.status in ("crashed", "failed", "stopped"):
            await self.restart()
        elif self.status in ("starting", "reconnecting"):
            await self.wait_ready(timeout_s)
        return self._available_client()

    def _available_client(self) -> Any:
        client = self._client
        if client is None or self.status != "connected":
            raise McpError(f"MCP server {self.name} is not available: {self.error or self.status}")
        return client

    async def _call_once(
        self, client: Any, tool: str, arguments: dict[str, Any], timeout_s: float, on_progress: ProgressSink | None
    ) -> dict[str, Any]:
        async def progress(done: float, total: float | None, message: str | None) -> None:
            if on_progress is not None:
                with contextlib.suppress(Exception):  # a frontend's trouble must not fail the call
                    on_progress(done, total, message)

        try:
            async with asyncio.timeout(timeout_s):
                # With a progress callback the SDK sends a progressToken; the server's
                # notifications/progress for this call come back through it.
                result = await client.call_tool(tool, arguments, progress_callback=progress)
        except TimeoutError:
            raise McpError(f"MCP tool {tool} (server {self.name}) timed out after {timeout_s:g} s") from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if self._http is not None and session_expired(exc, self._http.session_status):
                raise _SessionExpired() from None
            if is_connection_loss(exc):
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
        dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    async def _mark_crashed(self, reason: str) -> None:
        self.status = "crashed"
        code = await self._exit_code(0.5) if self._process is not None else None
        detail = f": {exit_detail(code, last_stderr_line(self.log_path, self._log_start))}" if code is not None else ""
        self.error = f"connection lost: {reason}{detail}"
        self._write_log(self.error)
        task = self._task
        self._stop.set()
        if task is not None and not task.done():
            # Leave the SDK's context in its own task; a dead process is reaped there.
            done, _ = await asyncio.wait({task}, timeout=STOP_GRACE_S)
            if not done:
                task.cancel()
                await asyncio.wait({task}, timeout=STOP_CANCEL_WAIT_S)
        self._kill_child()
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
        self._log_start = handle.tell()
        return handle

    def _write_log(self, line: str) -> None:
        with contextlib.suppress(OSError):
            with open_private_append(self.log_path) as handle:
                handle.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")


def _safe_file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "server"
