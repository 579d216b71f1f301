"""web_fetch against a local HTTP server: HTML as Markdown, redirects named, binary refused, big pages
truncated with the whole text kept, and never a cookie or a stored credential sent."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from atomic.core.tools.base import ToolContext, ToolError
from atomic.core.tools.web_fetch import WebFetchTool
from tests.support import LocalHTTPServer

PAGE = b"""<html><head><title>Docs</title><style>body{color:red}</style><script>alert(1)</script></head>
<body><h1>Install</h1><p>Run <code>pip install atomic</code> then <a href="/next">read on</a>.</p>
<ul><li>one</li><li>two</li></ul></body></html>"""


class Site(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def log_message(self, *_args: Any) -> None:
        pass

    def do_GET(self) -> None:
        Site.seen.append({k.lower(): v for k, v in self.headers.items()} | {"path": self.path})
        port = self.server.server_address[1]
        if self.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE, cookie=True)
        elif self.path == "/hop":
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{port}/page")
            self.send_header("Set-Cookie", "session=abc")
            self.end_headers()
        elif self.path == "/same-host-hop":
            self.send_response(301)
            self.send_header("Location", "/page")
            self.end_headers()
        elif self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
        elif self.path == "/image":
            self._send(200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
        elif self.path == "/big":
            self._send(200, "text/plain", "".join(f"line {i}\n" for i in range(5000)).encode())
        elif self.path == "/json":
            self._send(200, "application/json", b'{"ok": true}')
        else:
            self._send(404, "text/plain", b"no such page")

    def _send(self, status: int, content_type: str, body: bytes, cookie: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if cookie:
            self.send_header("Set-Cookie", "tracker=1")
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def site() -> Iterator[str]:
    Site.seen = []
    server = LocalHTTPServer(Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="web-test")


async def fetch(tmp_path: Path, url: str, **extra: Any) -> Any:
    return await WebFetchTool().execute("w1", {"url": url, **extra}, ctx(tmp_path))


async def test_html_becomes_markdown_without_scripts(site: str, tmp_path: Path) -> None:
    out = await fetch(tmp_path, f"{site}/page", prompt="how to install")
    text = out.content[0].text
    assert text.startswith(f"URL: {site}/page\nStatus: 200\nLooking for: how to install")
    assert "# Install" in text and "`pip install atomic`" in text and "[read on](/next)" in text
    assert "* one" in text or "- one" in text
    assert "alert(1)" not in text and "color:red" not in text


async def test_a_redirect_to_another_host_is_named_and_cookies_are_never_sent(site: str, tmp_path: Path) -> None:
    out = await fetch(tmp_path, f"{site}/hop")
    text = out.content[0].text
    port = site.rsplit(":", 1)[1]
    assert f"URL: http://localhost:{port}/page" in text
    assert f"redirected from {site}/hop to another host: http://localhost:{port}/page" in text
    assert [s["path"] for s in Site.seen] == ["/hop", "/page"]
    assert all("cookie" not in s for s in Site.seen)
    # A second fetch after the server set cookies still sends none.
    await fetch(tmp_path, f"{site}/page")
    assert all("cookie" not in s for s in Site.seen)


async def test_a_same_host_redirect_is_followed_quietly(site: str, tmp_path: Path) -> None:
    text = (await fetch(tmp_path, f"{site}/same-host-hop")).content[0].text
    assert "another host" not in text and "# Install" in text


async def test_stored_credentials_are_never_sent(site: str, tmp_path: Path, isolated_home: Path) -> None:
    home = isolated_home.parent.parent
    (home / ".netrc").write_text("machine 127.0.0.1 login alice password hunter2\n")
    (home / ".netrc").chmod(0o600)
    await fetch(tmp_path, f"{site}/page")
    assert "authorization" not in Site.seen[-1]
    with pytest.raises(ToolError, match="never sends credentials"):
        await fetch(tmp_path, f"http://alice:pw@127.0.0.1:{site.rsplit(':', 1)[1]}/page")


async def test_binary_is_refused_and_json_is_read(site: str, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="image/png"):
        await fetch(tmp_path, f"{site}/image")
    assert '{"ok": true}' in (await fetch(tmp_path, f"{site}/json")).content[0].text


async def test_a_big_page_is_truncated_and_kept_whole(site: str, tmp_path: Path) -> None:
    out = await fetch(tmp_path, f"{site}/big")
    text = out.content[0].text
    assert "line 0\n" in text and "line 4999\n" not in text and "[Showing 2000 of 5000 lines" in text
    full = Path(out.details["fullOutputPath"]).read_text()
    assert "line 4999" in full and oct(Path(out.details["fullOutputPath"]).stat().st_mode)[-3:] == "600"


async def test_errors_are_tool_errors(site: str, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Status: 404"):
        await fetch(tmp_path, f"{site}/missing")
    with pytest.raises(ToolError, match="More than 5 redirects"):
        await fetch(tmp_path, f"{site}/loop")
    with pytest.raises(ToolError, match="http or https"):
        await fetch(tmp_path, "file:///etc/passwd")
    with pytest.raises(ToolError, match="Could not fetch"):
        await fetch(tmp_path, "http://127.0.0.1:9/closed")
