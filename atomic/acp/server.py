"""`atomic --mode acp`: JSON-RPC 2.0 over stdio, through the official ACP SDK.

The SDK's reader drops a line it cannot parse without a word; a guard in front of it answers such a
line with a JSON-RPC error (-32700 parse error, -32600 for JSON that is not a request object) and
the agent keeps serving. stdout carries protocol lines only; everything else goes to stderr.

The same guard answers `initialize` itself (handshake.py), so the client hears back at once while
the SDK and the agent, about a second of imports, load in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import platform
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from atomic.acp.handshake import early_initialize, is_initialize, login_methods

if TYPE_CHECKING:
    from atomic.core.contract import SessionOptions

# Prompts carry images: lines may be large.
LINE_LIMIT = 64 * 1024 * 1024


def guard_error(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error a line deserves before it reaches the SDK, or None to pass it on."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        # RecursionError: a deeply nested line (100,000 `[`) is a parse error, not the end of the agent.
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    if not isinstance(message, dict):
        return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    return None


class EarlyHandshake:
    """`initialize` requests the pump answered; the agent is told their parameters once it exists."""

    def __init__(self, auth_methods: asyncio.Future[list[dict[str, Any]]]) -> None:
        self.auth_methods = auth_methods
        self.params: list[dict[str, Any]] = []
        self.listener: Callable[[dict[str, Any]], None] | None = None

    async def answer(self, line: bytes) -> dict[str, Any] | None:
        if b'"initialize"' not in line:
            return None  # the common case stays a substring test
        message = json.loads(line)
        if not is_initialize(message):
            return None
        try:
            methods = await self.auth_methods
        except Exception:  # noqa: BLE001 - unreadable key files: offer nothing rather than fail
            methods = []
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if self.listener is not None:
            self.listener(params)
        else:
            self.params.append(params)
        return early_initialize(message, methods)

    def attach(self, listener: Callable[[dict[str, Any]], None]) -> None:
        self.listener = listener
        for params in self.params:
            listener(params)
        self.params = []


async def _pump(
    source: asyncio.StreamReader, sink: asyncio.StreamReader, writer: asyncio.StreamWriter,
    handshake: EarlyHandshake | None = None,
) -> None:
    """Copy valid lines from stdin to the SDK's reader; answer the others (and `initialize`) here."""
    try:
        while True:
            try:
                line = await source.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:
                line = exc.partial
                if not line:
                    break
            except asyncio.LimitOverrunError:
                await source.readexactly(LINE_LIMIT)  # drop the oversized start; the rest is garbage too
                writer.write(b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Line too long"}}\n')
                continue
            error = guard_error(line)
            early = await handshake.answer(line) if error is None and handshake is not None else None
            if error is not None or early is not None:
                writer.write((json.dumps(error or early) + "\n").encode())
                await writer.drain()
            elif line.strip():
                sink.feed_data(line if line.endswith(b"\n") else line + b"\n")
    finally:
        sink.feed_eof()


async def _stdio_streams() -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """stdin and stdout as asyncio streams, without importing the SDK (its own helper on Windows)."""
    if platform.system() == "Windows":
        from acp.stdio import stdio_streams

        return await stdio_streams(limit=LINE_LIMIT)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, sys.stdout)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def _load_agent_side() -> None:
    """The SDK and the agent's modules (with the engine's contract), imported in a worker thread."""
    import acp.agent.connection  # noqa: F401
    import acp.interfaces  # noqa: F401

    import atomic.acp.agent  # noqa: F401


async def serve(template: SessionOptions) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    methods = asyncio.ensure_future(asyncio.to_thread(login_methods, template))
    loading = asyncio.ensure_future(asyncio.to_thread(_load_agent_side))
    source, writer = await _stdio_streams()
    guarded = asyncio.StreamReader(limit=LINE_LIMIT)
    handshake = EarlyHandshake(methods)
    pump = asyncio.ensure_future(_pump(source, guarded, writer, handshake))
    await loading

    from acp.agent.connection import AgentSideConnection
    from acp.interfaces import Agent

    from atomic.acp.agent import AtomicAcpAgent

    agent = AtomicAcpAgent(template)
    handshake.attach(agent.remember_client)
    # session/resume and session/close are behind the SDK's "unstable" switch in this release.
    # The SDK's Agent protocol lists every optional method; the router looks up the ones we have.
    connection = AgentSideConnection(
        cast(Agent, agent), writer, guarded, listening=False, use_unstable_protocol=True
    )
    try:
        await connection.listen()
    finally:
        pump.cancel()
        await agent.shutdown()
    return 0
