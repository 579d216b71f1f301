"""Helpers shared by the test packages (fixtures live in tests/conftest.py)."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from atomic.core.engine.session import AgentSession
from atomic.core.messages import UserMessage, user_text


class Recorder:
    """Every event a session emits, as its wire dict, in order."""

    def __init__(self, session: AgentSession) -> None:
        self.events: list[dict[str, Any]] = []
        session.subscribe(lambda e: self.events.append(e.to_wire()))

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0, interval: float = 0.01) -> None:
    """Poll `predicate` on the running loop until it holds; fail after `timeout` seconds.

    (TUI tests use tests/tui/helpers.wait_for, which pauses the pilot instead of sleeping.)
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(interval)


def write_extension(folder: Path, name: str, source: str) -> Path:
    """Write `source` (dedented) as `folder/name` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def user_texts(messages: list[Any]) -> list[str]:
    """The text of each user message, in order (image blocks left out)."""
    return [user_text(m) for m in messages if isinstance(m, UserMessage)]


def module_of(session: AgentSession, path: Path) -> Any:
    """The module of the extension loaded from `path` (fails if it was not loaded)."""
    for loaded in session.extensions.extensions:
        if Path(loaded.path) == path.resolve():
            return loaded.module
    raise AssertionError(f"extension {path} not loaded")


class LocalHTTPServer(ThreadingHTTPServer):
    """A stand-in server on 127.0.0.1 whose handler failures are kept in `errors` instead of being
    printed as a traceback ("Exception occurred during processing of request") in a green run; a
    client that hangs up mid-answer is not a failure at all."""

    daemon_threads = True

    def __init__(self, handler: type[Any]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.errors: list[BaseException] = []

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        error = sys.exc_info()[1]
        if error is not None and not isinstance(error, ConnectionError):
            self.errors.append(error)
