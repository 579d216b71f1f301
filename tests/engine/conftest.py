from __future__ import annotations

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

    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd


@pytest.fixture
async def make_session(workdir: Path) -> AsyncIterator[Callable[..., Any]]:
    sessions: list[AgentSession] = []

    async def factory(responses: list[dict[str, Any]] | None = None, **kwargs: Any) -> tuple[AgentSession, ScriptedProvider, Recorder]:
        provider = ScriptedProvider(responses or [])
        options = SessionOptions(cwd=workdir, scripted=provider, **kwargs)
        session = await create_session(options)
        sessions.append(session)
        return session, provider, Recorder(session)

    yield factory
    for session in sessions:
        await session.shutdown()
