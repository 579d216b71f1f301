"""`atomic mcp login <server>`: the OAuth login of a remote MCP server, from the command line.

The authorization URL is printed on stderr (and opened in a browser when Atomic runs in a
terminal); the browser's redirect reaches a local callback, or the user pastes the URL it ended
on. Tokens go to `<agent dir>/mcp-oauth.json` (see docs/mcp.md); nothing secret is printed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import webbrowser
from pathlib import Path

USAGE = "usage: atomic mcp login <server>"


def _show(url: str) -> None:
    print(f"Open this URL to log in (or paste the address your browser ends on here):\n{url}",
          file=sys.stderr, flush=True)
    if sys.stdout.isatty() and sys.stderr.isatty():
        try:
            webbrowser.open(url)
        except Exception:  # noqa: BLE001 - no browser is fine: the URL is printed
            pass


async def _paste() -> str | None:
    # A daemon thread: a login finished by the browser must not wait for a line that never comes.
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def deliver(line: str) -> None:
        if not answer.done():
            answer.set_result(line or None)

    def read() -> None:
        line = sys.stdin.readline()
        with contextlib.suppress(RuntimeError):  # the login finished and its loop is gone
            loop.call_soon_threadsafe(deliver, line)

    threading.Thread(target=read, name="atomic-mcp-login-paste", daemon=True).start()
    return await answer


async def mcp_login(name: str, cwd: Path) -> int:
    from atomic.core.contract import SessionOptions, open_engine

    engine = await open_engine(SessionOptions(cwd=cwd, no_session=True))
    try:
        try:
            state = await engine.mcp.login(name, _show, _paste)
        except ValueError as exc:
            print(f"atomic: {exc}", file=sys.stderr)
            return 1
        if state is None:
            known = ", ".join(s.name for s in engine.mcp.servers()) or "none configured"
            print(f"atomic: no MCP server named {name!r} (servers: {known})", file=sys.stderr)
            return 1
        if state.status != "connected":
            print(f"atomic: MCP server {name} did not connect: {state.error or state.status}", file=sys.stderr)
            return 1
        print(f"Logged in to MCP server {name} ({len(state.tools)} tools).", file=sys.stderr)
        return 0
    finally:
        await engine.shutdown()


def run(argv: list[str]) -> int:
    """`argv` after `mcp`: `login <server>`."""
    if len(argv) != 2 or argv[0] != "login":
        print(USAGE, file=sys.stderr)
        return 2
    return asyncio.run(mcp_login(argv[1], Path.cwd()))
