"""`atomic --mode rpc`: JSON lines on stdin, responses and events as JSON lines on stdout.

Lines are split on `\\n` only (U+2028/U+2029 inside strings are data). Every line gets exactly one
answer, except lines of only spaces, tabs and CRs (skipped) and an `extension_ui_response` that
answers a pending request. Every command runs as its own task, so a long one (a streaming prompt,
`abort` waiting for idle, a bash command) never blocks the others. A malformed line, an unknown
command, a failing handler or a result that cannot be serialized gets an error response, and the
server keeps serving. EOF on stdin shuts down cleanly: the agent is aborted (everything it
produced is already on disk) and running bash requests are cancelled and drained.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any, BinaryIO

from atomic.core.atomic_io import encode_json_text
from atomic.core.contract import Engine
from atomic.core.events import Event, MessageUpdate
from atomic.rpc.extension_ui import resolve_ui_response
from atomic.rpc.handlers import HANDLERS, MODEL_BY_TYPE, NO_DATA, HandlerContext
from atomic.rpc.protocol import NO_ID, CommandError, ExtensionUiResponse, JsonNumber, parse_line
from atomic.rpc.update_lines import MessageUpdateLines
from atomic.rpc.wire_json import JsonPieces, dumps

READ_CHUNK = 1 << 16
# Lines of only these are skipped without an answer; anything else str.strip() would remove
# (\x0b, \x0c, U+00A0, U+2028, ...) is not JSON whitespace and gets a parse error.
BLANK = " \t\r"
_ID_PLACEHOLDER = "\u0000atomic-raw-id\u0000"


class JsonLineWriter:
    """Buffers lines and flushes once per event-loop pass: many small events, few syscalls.

    Serializing happens in `write`, so a caller sees any failure at once (and can answer with an
    error instead). Lone surrogates are escaped rather than failing the UTF-8 encoding.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._pending: list[bytes] = []
        self._scheduled = False

    @staticmethod
    def serialize(obj: dict[str, Any]) -> str:
        request_id = obj.get("id")
        if type(request_id) is JsonNumber:
            # Echo a number such as 2.50 or 1e999 exactly as the client wrote it.
            text = dumps({**obj, "id": _ID_PLACEHOLDER})
            return text.replace(dumps(_ID_PLACEHOLDER), request_id.text, 1)
        return dumps(obj)

    def write(self, obj: dict[str, Any]) -> None:
        self.write_text(self.serialize(obj))

    def write_text(self, text: str) -> None:
        self._pending.append(encode_json_text(text) + b"\n")
        if not self._scheduled:
            self._scheduled = True
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:
                self.flush()

    def write_pieces(self, prefix: str, body: JsonPieces, suffix: str) -> None:
        """Write the line `prefix + body + suffix` now, one chunk of `body` at a time.

        Joining a 28 MB answer, then encoding it and adding the newline, copied it four times into
        freshly mapped memory (page faults on every copy), and the client got the first byte only
        after all of that. Lines queued before this one are flushed first, and nothing else runs on
        the loop while it writes, so no line is interleaved and the bytes are the same.
        """
        self.flush()
        chunks = body.chunks
        last = len(chunks) - 1
        for index, chunk in enumerate(chunks):
            if index == 0:
                chunk = prefix + chunk
            if index == last:
                chunk += suffix
            data = encode_json_text(chunk)
            try:
                self._stream.write(data + b"\n" if index == last else data)
                self._stream.flush()
            except (BrokenPipeError, ValueError):  # the client hung up
                return

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
    def __init__(self, engine: Engine, stdout: BinaryIO) -> None:
        self.engine = engine
        self.out = JsonLineWriter(stdout)
        self.tasks: set[asyncio.Task[Any]] = set()
        self.context = HandlerContext(self.out.write)
        self._warm_up_pending = True
        self._updates = MessageUpdateLines()
        engine.subscribe(self._on_event)
        # This client answers extension dialogs; statuses etc. set before now are sent first.
        engine.extension_ui.attach(self._on_event)

    def _on_event(self, event: Event) -> None:
        if type(event) is MessageUpdate:  # one per streamed delta: the fast path
            self.out.write_text(self._updates.line(event))
        else:
            self.out.write(event.to_wire())

    def respond(self, command: str, request_id: Any = NO_ID, *, data: Any = NO_DATA, error: str | None = None) -> None:
        """Write one response: `id` (as sent), `type`, `command`, `success`, then `error` or `data`."""
        if self._warm_up_pending:
            # Once the first answer is out (its flush is queued in this pass; this runs in the next one),
            # load the provider's modules and HTTP stack in the background: start-up and idle memory stay as they were.
            self._warm_up_pending = False
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.call_soon, self.engine.models.warm_up_provider)
        head: dict[str, Any] = {}
        if request_id is not NO_ID:
            head["id"] = request_id
        head["type"] = "response"
        head["command"] = command
        head["success"] = error is None
        if error is not None:
            head["error"] = error
        if error is not None or data is NO_DATA:
            self.out.write(head)
            return
        try:
            prefix = self.out.serialize(head)
            # A big answer's items are JSON text already; it is written in chunks, never joined.
            body = None if type(data) is JsonPieces else dumps(data)
        except Exception as exc:  # a result that cannot be serialized still gets its answer
            head["success"] = False
            head["error"] = f"Failed to serialize the {command} result: {exc or type(exc).__name__}"
            self.out.write(head)
            return
        if body is None:
            self.out.write_pieces(f'{prefix[:-1]},"data":', data, "}")
        else:
            self.out.write_text(f'{prefix[:-1]},"data":{body}}}')

    def resolve_ui_response(self, response: ExtensionUiResponse) -> bool:
        """Hook for extension UI: True when `response` answered a pending extension_ui_request.

        Such a line is itself an answer and gets no response; any other one is handled as a command.
        """
        return resolve_ui_response(self.engine, response)

    def handle_line(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace")
        if not text.strip(BLANK):
            return
        try:
            command = parse_line(text, MODEL_BY_TYPE)
        except CommandError as exc:
            coro = self._reject(exc.command, exc.request_id, exc.message)
        except (ValueError, RecursionError) as exc:
            # RecursionError: a deeply nested line must be a parse error, not the end of the server.
            coro = self._reject("parse", NO_ID, f"Failed to parse command: {exc}")
        except Exception as exc:  # never leave a line unanswered, whatever went wrong
            coro = self._reject("parse", NO_ID, f"Failed to parse command: {exc or type(exc).__name__}")
        else:
            if isinstance(command, ExtensionUiResponse) and self.resolve_ui_response(command):
                return
            coro = self._run(command)
        # Every line becomes a task, so answers to quick commands (and to bad lines) keep arrival order.
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _reject(self, command: str, request_id: Any, message: str) -> None:
        self.respond(command, request_id, error=message)

    async def _run(self, command: Any) -> None:
        request_id = NO_ID if command.id is None else command.id
        try:
            # Looked up here so a command without a handler is answered with an error, never dropped.
            handler = HANDLERS.get(command.type)
            if handler is None:
                raise ValueError(f"No handler for command: {command.type}")
            data = await handler(self.engine, command, self.context)
        except asyncio.CancelledError:
            self.respond(command.type, request_id, error="Cancelled: the RPC server is shutting down")
            raise
        except Exception as exc:
            # foreign: whatever a handler raised, a library's exception included (many carry `message`)
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            self.respond(command.type, request_id, error=message)
            return
        self.respond(command.type, request_id, data=data)

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
        await self.engine.shutdown()
        pending = [t for t in self.tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        self.out.flush()


async def run_rpc(engine: Engine) -> int:
    for warning in engine.startup_warnings:
        print(f"warning: {warning}", file=sys.stderr)
    server = RpcServer(engine, sys.stdout.buffer)
    await server.serve(sys.stdin.fileno())
    return 0
