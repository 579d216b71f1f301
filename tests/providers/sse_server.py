"""A tiny scripted HTTP server that speaks the SSE wire format, for provider tests.

Each POST pops the next scripted `Reply` and records the request (path, headers, JSON body).
Replies stream as chunked HTTP/1.1, so a reply can also drop the connection mid-body (the
client sees an incomplete chunked read) or stall and watch for the client hanging up.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support import LocalHTTPServer


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any
    # The client's port: two requests with the same port came over one (kept-alive) connection.
    client_port: int = 0
    # The body exactly as sent (a signature covers these bytes).
    raw: bytes = b""


@dataclass
class Reply:
    status: int = 200
    # (event name or None, data dict or raw string); rendered as `event:`/`data:` lines.
    events: list[tuple[str | None, Any]] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)
    # A plain (non-SSE) body, for error replies.
    body: Any = None
    # Close the socket without finishing the chunked body after this many events.
    drop_after: int | None = None
    # After this many events stop sending data and keep probing until the client hangs up.
    stall_after: int | None = None
    # Frames sent as they are, one chunk each, in place of `events` (CRLF-framed SSE, binary
    # event-stream messages), under `content_type`.
    raw_frames: list[bytes] | None = None
    content_type: str = "text/event-stream"


def sse_lines(events: list[tuple[str | None, Any]]) -> Iterator[bytes]:
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        if name == ":":  # an SSE comment line, e.g. OpenRouter's ": OPENROUTER PROCESSING"
            yield f": {text}\n\n".encode()
            continue
        frame = (f"event: {name}\n" if name else "") + f"data: {text}\n\n"
        yield frame.encode()


class ScriptedServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[RecordedRequest] = []
        self.client_hung_up = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:  # credential endpoints (AWS SSO) answer GETs
                self.do_POST()

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                server.requests.append(
                    RecordedRequest(
                        self.path, {k.lower(): v for k, v in self.headers.items()}, body, self.client_address[1], raw
                    )
                )
                reply = (
                    server.replies.pop(0) if server.replies else Reply(status=500, body={"error": "no reply"})
                )
                try:
                    server._send(self, reply)
                except (BrokenPipeError, ConnectionResetError):
                    # The client hung up mid-reply (it stops reading at an error event): not a failure.
                    server.client_hung_up.set()
                    self.close_connection = True

        self._httpd = LocalHTTPServer(Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.body is not None or reply.status != 200:
            payload = reply.body if reply.body is not None else ""
            data = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
            handler.send_response(reply.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for name, value in reply.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
            return

        handler.send_response(200)
        handler.send_header("content-type", reply.content_type)
        handler.send_header("transfer-encoding", "chunked")
        handler.send_header("cache-control", "no-cache")
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()

        def chunk(data: bytes) -> None:
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()

        frames = reply.raw_frames if reply.raw_frames is not None else sse_lines(reply.events)
        for count, frame in enumerate(frames):
            if reply.drop_after is not None and count >= reply.drop_after:
                handler.close_connection = True
                handler.wfile.flush()
                handler.connection.shutdown(2)  # abrupt: no terminating zero-length chunk
                return
            if reply.stall_after is not None and count >= reply.stall_after:
                self._wait_for_hang_up(chunk)
                handler.close_connection = True
                return
            chunk(frame)
        if reply.drop_after is not None:
            handler.close_connection = True
            handler.connection.shutdown(2)
            return
        chunk(b"")

    def _wait_for_hang_up(self, chunk: Any) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                chunk(b": keep-alive\n\n")  # an SSE comment: ignored by clients
            except OSError:
                self.client_hung_up.set()
                return
