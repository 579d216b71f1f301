"""`atomic --mode acp`: JSON-RPC 2.0 over stdio, through the official ACP SDK.

The SDK's reader drops a line it cannot parse without a word; a guard in front of it answers such a
line with a JSON-RPC error (-32700 parse error, -32600 for JSON that is not a request object) and
the agent keeps serving. stdout carries protocol lines only; everything else goes to stderr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any, cast

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


async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy valid lines from stdin to the SDK's reader; answer the others here."""
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
            if error is not None:
                writer.write((json.dumps(error) + "\n").encode())
                await writer.drain()
            elif line.strip():
                sink.feed_data(line if line.endswith(b"\n") else line + b"\n")
    finally:
        sink.feed_eof()


async def serve(template: SessionOptions) -> int:
    from acp.agent.connection import AgentSideConnection
    from acp.interfaces import Agent
    from acp.stdio import stdio_streams

    from atomic.acp.agent import AtomicAcpAgent

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    source, writer = await stdio_streams(limit=LINE_LIMIT)
    guarded = asyncio.StreamReader(limit=LINE_LIMIT)
    agent = AtomicAcpAgent(template)
    # session/resume and session/close are behind the SDK's "unstable" switch in this release.
    # The SDK's Agent protocol lists every optional method; the router looks up the ones we have.
    connection = AgentSideConnection(
        cast(Agent, agent), writer, guarded, listening=False, use_unstable_protocol=True
    )
    pump = asyncio.ensure_future(_pump(source, guarded, writer))
    try:
        await connection.listen()
    finally:
        pump.cancel()
        await agent.shutdown()
    return 0
