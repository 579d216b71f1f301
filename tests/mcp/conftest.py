"""Shared helpers for the MCP tests: the tiny SDK server as a stdio subprocess or on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from atomic.core.mcp.config import McpServerConfig
from tests import support

SERVER = Path(__file__).resolve().parent / "tiny_server.py"


def tiny(name: str = "tiny", *args: str, **kwargs: object) -> McpServerConfig:
    """A stdio config that runs the tiny server with extra arguments."""
    return McpServerConfig(name=name, command=sys.executable, args=(str(SERVER), *args), **kwargs)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """A tiny server process on 127.0.0.1 that a test can kill and start again on the same port."""

    def __init__(self, kind: str, log_path: Path, port: int | None = None) -> None:
        self.kind = kind
        self.port = port or free_port()
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        path = "sse" if self.kind == "sse" else "mcp"
        return f"http://127.0.0.1:{self.port}/{path}"

    def start(self) -> None:
        log = open(self.log_path, "a")  # noqa: SIM115
        self.proc = subprocess.Popen([sys.executable, str(SERVER), f"--{self.kind}", str(self.port)],
                                     stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    raise RuntimeError("the HTTP MCP server did not start") from None
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def restartable_http(tmp_path: Path) -> Iterator[Callable[[str], HttpServer]]:
    servers: list[HttpServer] = []

    def make(kind: str) -> HttpServer:
        server = HttpServer(kind, tmp_path / f"{kind}-server.log")
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.kill()


@pytest.fixture(params=["http", "sse"])
def http_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The tiny server over streamable HTTP (or SSE) on 127.0.0.1; yields (transport, URL)."""
    kind = str(request.param)
    port = free_port()
    log = open(tmp_path / "http-server.log", "w")  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, str(SERVER), f"--{kind}", str(port)], stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("the HTTP MCP server did not start") from None
            time.sleep(0.05)
    try:
        yield kind, f"http://127.0.0.1:{port}/{'mcp' if kind == 'http' else 'sse'}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


async def wait_for(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    """The shared poller with a longer default: MCP servers are subprocesses that start slowly under load."""
    await support.wait_for(predicate, timeout, interval=0.02)
