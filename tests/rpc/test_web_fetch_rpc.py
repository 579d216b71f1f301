"""web_fetch over RPC in ask mode: the fetch waits for a confirm naming the URL and the domain rule,
reads the local page once approved, and "always" covers the next fetch from that host."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.rpc.conftest import StartRpc
from tests.rpc.test_permission_attacks_rpc import answer_confirm, confirms


class Page(BaseHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = b"<html><body><h1>Changelog</h1><p>Version 2 is out.</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_a_fetch_is_confirmed_once_per_domain(start_rpc: StartRpc, site: str) -> None:
    script = [
        {"toolCalls": [{"name": "web_fetch", "id": "f1", "arguments": {"url": f"{site}/changes"}}]},
        {"toolCalls": [{"name": "web_fetch", "id": "f2", "arguments": {"url": f"{site}/other"}}]},
        {"text": "read both"},
    ]
    client = await start_rpc(script, "--permission-mode", "ask")
    await client.prompt("what changed?")
    request = await answer_confirm(client, 0, confirmed=True, always=True)
    await client.wait_for("agent_settled")
    assert f"Fetch {site}/changes" in request["message"] and request["alwaysRule"] == "WebFetch(domain:127.0.0.1)"
    assert len(confirms(client)) == 1  # the second page of the same host was not asked about
    ends = [m for m in client.lines if m.get("type") == "tool_execution_end"]
    assert [m["isError"] for m in ends] == [False, False]
    assert "# Changelog" in ends[0]["result"]["content"][0]["text"]
