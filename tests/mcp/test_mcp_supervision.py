"""Servers that die while idle, forget the session, hang at start, or want a login; stopping mid-handshake."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from atomic.core.mcp.config import McpConfigResult, McpServerConfig
from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.failures import session_expired
from atomic.core.mcp.manager import McpLimits, McpManager

from .conftest import SERVER, HttpServer, free_port, tiny, wait_for


def stdio_connection(tmp_path: Path, *args: str) -> McpConnection:
    return McpConnection(tiny("tiny", *args), cwd=tmp_path, log_dir=tmp_path / "logs", startup_timeout_s=60)


def remote(tmp_path: Path, kind: str, url: str) -> McpConnection:
    config = McpServerConfig(name="web", transport=kind, url=url)  # type: ignore[arg-type]
    return McpConnection(config, cwd=tmp_path, log_dir=tmp_path / "logs", startup_timeout_s=60)


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


async def test_a_stdio_server_that_dies_while_idle_is_crashed_at_once_and_the_next_call_restarts_it(
    tmp_path: Path,
) -> None:
    conn = stdio_connection(tmp_path)
    conn.start()
    await conn.wait_ready(60)
    try:
        assert conn.status == "connected", conn.error
        await conn.call("exit_soon", {"delay": 0.2}, 30)
        await wait_for(lambda: conn.error == "connection lost: exited with code 4: tiny: leaving while idle")
        assert conn.status == "crashed"
        result = await conn.call("add", {"a": 1, "b": 2}, 30)
        assert result["content"][0]["text"] == "3"
        assert conn.status == "connected" and conn.restarts == 1
    finally:
        await conn.stop()


@pytest.mark.parametrize("kind", ["http", "sse"])
async def test_a_remote_server_that_goes_away_while_idle_is_crashed_then_restarted(
    tmp_path: Path, restartable_http: Callable[[str], HttpServer], kind: str
) -> None:
    server = restartable_http(kind)
    conn = remote(tmp_path, kind, server.url)
    conn.start()
    await conn.wait_ready(60)
    try:
        assert conn.status == "connected", conn.error
        server.kill()
        # SSE: the event stream ends; streamable HTTP: the SDK's GET stream reconnects and is refused.
        await wait_for(lambda: conn.status == "crashed")
        assert (conn.error or "").startswith("connection lost:")
        server.start()
        result = await conn.call("add", {"a": 2, "b": 2}, 30)
        assert result["content"][0]["text"] == "4" and conn.status == "connected"
    finally:
        await conn.stop()


async def test_a_remote_server_that_forgot_the_session_is_initialized_again_within_the_call(
    tmp_path: Path, restartable_http: Callable[[str], HttpServer]
) -> None:
    server = restartable_http("http")
    conn = remote(tmp_path, "http", server.url)
    conn.start()
    await conn.wait_ready(60)
    try:
        await conn.call("forget_sessions", {}, 30)
        # The next request gets 404 "Session not found": a new session, and the same call retried.
        result = await conn.call("add", {"a": 20, "b": 22}, 30)
        assert result["content"][0]["text"] == "42"
        assert conn.status == "connected" and conn.session_renewals == 1
    finally:
        await conn.stop()


def test_which_answers_mean_the_session_is_gone() -> None:
    class MCPError(Exception):  # the SDK's name: (code, message)
        pass

    assert session_expired(MCPError(-32600, "Session not found"), 404)
    assert session_expired(MCPError(-32000, "Bad Request: No valid session ID provided"), 400)
    assert not session_expired(MCPError(-32602, "Invalid params"), 400)
    assert not session_expired(MCPError(-32000, "Connection closed"), 200)
    assert not session_expired(ValueError("x"), 404)


async def test_a_server_that_wants_a_login_says_so(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(SERVER), "--unauthorized", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        server = HttpServer("http", tmp_path / "x.log", port)
        server.proc = proc
        await asyncio.to_thread(_wait_port, port)
        conn = remote(tmp_path, "http", f"http://127.0.0.1:{port}/mcp")
        conn.start()
        await conn.wait_ready(60)
        assert conn.status == "failed"
        # It has no OAuth metadata either: the SDK's attempt to register says so after the words.
        assert (conn.error or "").startswith("needs authentication (HTTP 401)")
        await conn.stop()
    finally:
        proc.kill()
        proc.wait(10)


def _wait_port(port: int) -> None:
    import socket
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("port never opened")


async def test_a_hanging_server_does_not_hold_the_prompt_for_the_whole_wait(tmp_path: Path) -> None:
    servers = [tiny("good"), tiny("hangs", "--slow-start", "600")]
    manager = McpManager(McpConfigResult(servers, [], [], []), cwd=tmp_path, agent_dir=tmp_path,
                         limits=McpLimits(prompt_wait_s=600, startup_timeout_s=600))
    manager.start()
    try:
        # promptWait is 600 s; the hanging server shows no progress, so the wait ends long before.
        await asyncio.wait_for(manager.wait_ready(stall_s=1.0), 120)
        states = {s.name: s.status for s in manager.states()}
        assert states == {"good": "connected", "hangs": "starting"}
    finally:
        await manager.shutdown()


async def test_stopping_during_the_handshake_kills_the_server_at_once(tmp_path: Path) -> None:
    conn = stdio_connection(tmp_path, "--slow-start", "600")
    conn.start()
    await wait_for(lambda: conn.pid is not None)
    pid = conn.pid
    assert pid is not None
    await asyncio.wait_for(conn.stop(), 15)
    await wait_for(lambda: gone(pid), 5)
    assert conn.status == "stopped"
