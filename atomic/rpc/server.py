"""`atomic --mode rpc`: JSON lines on stdin, responses and events as JSON lines on stdout.

Lines are split on `\\n` only (a trailing `\\r` is stripped; U+2028/U+2029 inside strings are data).
Every command runs as its own task, so a long one (a streaming prompt, `abort` waiting for idle, a
bash command) never blocks the others. A malformed line or an unknown command gets an error response
and the server keeps serving. EOF on stdin shuts down cleanly: the agent is aborted (everything it
produced is already on disk) and running bash requests are cancelled and drained.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys
from typing import Any, BinaryIO

from atomic.core.engine.session import AgentSession
from atomic.core.events import Event
from atomic.rpc.handlers import HANDLERS, NO_DATA, HandlerContext
from atomic.rpc.protocol import CommandError, parse_command

READ_CHUNK = 1 << 16


class JsonLineWriter:
    """Buffers lines and flushes once per event-loop pass: many small events, few syscalls."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._scheduled = False

    def write(self, obj: dict[str, Any]) -> None:
        self._pending.append(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n")
        if not self._scheduled:
            self._scheduled = True
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:
                self.flush()

    def flush(self) -> None:
        self._scheduled = False
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending.clear()
        try:
            self._stream.write(data)
            self._stream.flush()
        except (BrokenPipeError, ValueError):
            pass


class RpcServer:
    def __init__(self, session: AgentSession, stdout: BinaryIO) -> None:
        self.session = session
        self.out = JsonLineWriter(stdout)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.context = HandlerContext(self.out.write)
        self._warm_up_pending = True
        session.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        self.out.write(event.to_wire())

    def respond(self, command: str, request_id: Any, *, data: Any = NO_DATA, error: str | None = None) -> None:
        response: dict[str, Any] = {}
        if request_id is not None:
            # JSON has no Infinity/NaN: an id like 1e999 is echoed as text rather than as invalid JSON.
            if isinstance(request_id, float) and not math.isfinite(request_id):
                request_id = str(request_id)
            response["id"] = request_id
        response["type"] = "response"
        response["command"] = command
        response["success"] = error is None
        if error is not None:
            response["error"] = error
        elif data is not NO_DATA:
            response["data"] = data
        self.out.write(response)
        if self._warm_up_pending:
            # Once the first answer is out (the flush is queued first), load the provider SDK in the
            # background: start-up and idle memory stay small, and the first prompt rarely waits.
            self._warm_up_pending = False
            asyncio.get_running_loop().call_soon(self.session.warm_up_provider)

    def handle_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace")
        if text.endswith("\r"):
            text = text[:-1]
        if not text.strip():
            return
        try:
            command = parse_command(json.loads(text))
        except (ValueError, RecursionError) as exc:
            # RecursionError: a deeply nested line must be a parse error, not the end of the server.
            coro = self._reject("parse", None, f"Failed to parse command: {exc}")
        except CommandError as exc:
            coro = self._reject(exc.command, exc.request_id, exc.message)
        else:
            coro = self._run(command)
        # Every line becomes a task, so answers to quick commands (and to bad lines) keep arrival order.
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _reject(self, command: str, request_id: Any, message: str) -> None:
        self.respond(command, request_id, error=message)

    async def _run(self, command: Any) -> None:
        handler = HANDLERS[command.type]
        try:
            data = await handler(self.session, command, self.context)
        except asyncio.CancelledError:
            self.respond(command.type, command.id, error="Cancelled: the RPC server is shutting down")
            raise
        except Exception as exc:
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            self.respond(command.type, command.id, error=message)
            return
        self.respond(command.type, command.id, data=data)

    async def serve(self, stdin_fd: int) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 30)
        pipe = os.fdopen(stdin_fd, "rb", buffering=0, closefd=False)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), pipe)
        # Pieces of the unfinished line; only each new chunk is searched for "\n", so a line of many
        # megabytes (a big image) costs linear time rather than re-scanning and re-copying the buffer.
        partial: list[bytes] = []
        while True:
            chunk = await reader.read(READ_CHUNK)
            if not chunk:
                break
            start = 0
            while (end := chunk.find(b"\n", start)) >= 0:
                partial.append(chunk[start:end])
                line = b"".join(partial)
                partial.clear()
                self.handle_line(line)
                start = end + 1
            if start < len(chunk):
                partial.append(chunk[start:])
        if partial:
            self.handle_line(b"".join(partial))
        await self.shutdown()

    async def shutdown(self) -> None:
        # Let commands that are already answerable finish, then stop the rest.
        await asyncio.sleep(0)
        await self.session.shutdown()
        pending = [t for t in self.tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        self.out.flush()


async def run_rpc(session: AgentSession) -> int:
    for warning in session.startup_warnings:
        print(f"warning: {warning}", file=sys.stderr)
    server = RpcServer(session, sys.stdout.buffer)
    await server.serve(sys.stdin.fileno())
    return 0
