from __future__ import annotations

import asyncio
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.providers.scripted import ScriptedProvider


class Recorder:
    def __init__(self, session: AgentSession) -> None:
        self.events: list[dict[str, Any]] = []
        session.subscribe(lambda e: self.events.append(e.to_wire()))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


def write_extension(folder: Path, name: str, source: str) -> Path:
    """Write `source` (dedented) as `folder/name` and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def module_of(session: AgentSession, path: Path) -> Any:
    for loaded in session.extensions.extensions:
        if Path(loaded.path) == path.resolve():
            return loaded.module
    raise AssertionError(f"extension {path} not loaded")


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd


@pytest.fixture
def ext_dir(tmp_path: Path) -> Path:
    """A folder outside any discovery location, for extensions passed with -e."""
    folder = tmp_path / "ext"
    folder.mkdir()
    return folder


@pytest.fixture
async def make_session(workdir: Path) -> AsyncIterator[Callable[..., Any]]:
    sessions: list[AgentSession] = []

    async def factory(
        responses: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> tuple[AgentSession, ScriptedProvider]:
        provider = ScriptedProvider(responses or [])
        kwargs.setdefault("no_session", False)
        options = SessionOptions(cwd=workdir, scripted=provider, **kwargs)
        session = await create_session(options)
        sessions.append(session)
        return session, provider

    yield factory
    for session in sessions:
        await session.shutdown()
