"""OAuth for a remote server against a local authorization server (the SDK's server-side auth)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from atomic.core.mcp.config import McpServerConfig
from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.oauth import LoginFlow

from .conftest import free_port

OAUTH_SERVER = Path(__file__).resolve().parent / "oauth_server.py"


@pytest.fixture(params=[3600])
def guarded(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The guarded server on 127.0.0.1; yields (MCP URL, its stderr log)."""
    import socket
    import time

    port = free_port()
    log_path = tmp_path / "oauth-server.log"
    log = open(log_path, "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, str(OAUTH_SERVER), str(port), "--token-lifetime", str(request.param)],
                            stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            assert proc.poll() is None and time.monotonic() < deadline, "the OAuth server did not start"
            time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/mcp", log_path
    finally:
        proc.kill()
        proc.wait(10)
        log.close()


def remote(tmp_path: Path, url: str) -> McpConnection:
    return McpConnection(McpServerConfig(name="vault", transport="http", url=url), cwd=tmp_path,
                         log_dir=tmp_path / "agent" / "logs", startup_timeout_s=30)


def browser(shown: list[str]) -> object:
    """The user's browser: opens the authorization URL and follows the redirect to the callback."""

    def show(url: str) -> None:
        shown.append(url)

        async def visit() -> None:
            async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as client:
                await client.get(url)

        asyncio.get_running_loop().create_task(visit())

    return show


async def test_a_server_that_needs_oauth_says_needs_login_then_logs_in_and_reconnects(
    tmp_path: Path, guarded: tuple[str, Path]
) -> None:
    url, server_log = guarded
    conn = remote(tmp_path, url)
    conn.start()
    await conn.wait_ready(60)
    try:
        # In the background nothing is opened: the status asks for a login.
        assert conn.status == "needs login"
        assert "atomic mcp login vault" in (conn.error or "")
        shown: list[str] = []
        await conn.login(LoginFlow(browser(shown)))  # type: ignore[arg-type]
        assert conn.status == "connected", conn.error
        assert shown and "code_challenge=" in shown[0] and "redirect_uri=http%3A%2F%2F127.0.0.1" in shown[0]
        result = await conn.call("secret", {}, 30)
        assert result["content"][0]["text"] == "the vault is open"
    finally:
        await conn.stop()
    tokens = conn.token_path
    assert stat.S_IMODE(os.stat(tokens).st_mode) == 0o600
    saved = json.loads(tokens.read_text())[url]
    assert saved["tokens"]["access_token"] and saved["client"]["client_id"]
    # Never in a log.
    logs = "".join(p.read_text() for p in (tmp_path / "agent" / "logs").glob("*")) if (
        tmp_path / "agent" / "logs").exists() else ""
    assert saved["tokens"]["access_token"] not in logs
    # The next start uses the stored token without asking.
    again = remote(tmp_path, url)
    again.start()
    await again.wait_ready(60)
    try:
        assert again.status == "connected", again.error
    finally:
        await again.stop()
    assert "registered a client" in server_log.read_text()


async def test_a_pasted_redirect_url_completes_the_login(tmp_path: Path, guarded: tuple[str, Path]) -> None:
    url, _log = guarded
    conn = remote(tmp_path, url)
    pasted: asyncio.Queue[str | None] = asyncio.Queue()

    def show(authorization_url: str) -> None:
        async def visit_without_callback() -> None:
            # A browser on another machine: it ends on the redirect URL, which the user pastes.
            async with httpx2.AsyncClient(follow_redirects=False, timeout=30) as client:
                answer = await client.get(authorization_url)
            await pasted.put(answer.headers["location"])

        asyncio.get_running_loop().create_task(visit_without_callback())

    flow = LoginFlow(show, pasted.get)
    try:
        await conn.login(flow)
        assert conn.status == "connected", conn.error
    finally:
        await conn.stop()


@pytest.mark.parametrize("guarded", [5], indirect=True)
async def test_an_expired_token_is_refreshed_without_a_login(tmp_path: Path, guarded: tuple[str, Path]) -> None:
    url, server_log = guarded
    conn = remote(tmp_path, url)
    try:
        await conn.login(LoginFlow(browser([])))  # type: ignore[arg-type]
        assert conn.status == "connected", conn.error
    finally:
        await conn.stop()
    first = json.loads(conn.token_path.read_text())[url]["tokens"]["access_token"]
    await asyncio.sleep(6)  # the access token lives 5 s
    again = remote(tmp_path, url)
    again.start()
    await again.wait_ready(60)
    try:
        assert again.status == "connected", again.error
        assert (await again.call("secret", {}, 30))["content"][0]["text"] == "the vault is open"
    finally:
        await again.stop()
    assert "issued refreshed" in server_log.read_text()
    assert json.loads(conn.token_path.read_text())[url]["tokens"]["access_token"] != first


async def test_atomic_mcp_login_logs_in_from_the_command_line(
    tmp_path: Path, guarded: tuple[str, Path], isolated_home: Path
) -> None:
    url, _log = guarded
    agent_dir = isolated_home  # the fixture's ATOMIC_CODING_AGENT_DIR
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"vault": {"type": "http", "url": url}}}))
    env = dict(os.environ, ATOMIC_CODING_AGENT_DIR=str(agent_dir))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", "mcp", "login", "vault", cwd=tmp_path, env=env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    while True:
        line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
        assert line, "".join(lines)
        lines.append(line)
        if line.startswith("http://127.0.0.1"):
            break
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as client:
        await client.get(line.strip())
    _out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, "".join(lines) + err.decode()
    assert "Logged in to MCP server vault (1 tools)." in err.decode()
    saved = json.loads((agent_dir / "mcp-oauth.json").read_text())[url]
    assert saved["tokens"]["access_token"] not in "".join(lines) + err.decode()

    missing = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", "mcp", "login", "nope", cwd=tmp_path, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    _out, err = await asyncio.wait_for(missing.communicate(), 60)
    assert missing.returncode == 1 and "no MCP server named 'nope'" in err.decode()
