"""Each login test gets the stand-in servers and the test-only variables that point the logins at them."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.logins.standins import StandInServer


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInServer]:
    server = StandInServer().start()
    monkeypatch.setenv("ATOMIC_TEST_GITHUB_URL", server.url)
    monkeypatch.setenv("ATOMIC_TEST_GITHUB_API_URL", server.url)
    monkeypatch.setenv("ATOMIC_TEST_OPENAI_AUTH_URL", server.url)
    yield server
    server.stop()


@pytest.fixture
def callback_port(monkeypatch: pytest.MonkeyPatch) -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    monkeypatch.setenv("ATOMIC_TEST_CODEX_CALLBACK_PORT", str(port))
    return port


@dataclass
class ScriptedPrompts:
    """A person at the login: records what was shown, answers `ask` from a list (or gives up)."""

    answers: list[str] = field(default_factory=list)
    shown: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    asked: int = 0
    on_url: object = None

    def show(self, text: str, *, url: str | None = None, code: str | None = None) -> None:
        self.shown.append((text, url, code))
        if url and callable(self.on_url):
            self.on_url(url)

    async def ask(self, question: str) -> str:
        import asyncio

        from atomic.core.oauth import LoginCancelled

        self.asked += 1
        if self.answers:
            return self.answers.pop(0)
        if self.on_url is not None:
            await asyncio.Event().wait()  # the browser answers through the callback instead
        raise LoginCancelled("cancelled at the prompt")


@pytest.fixture
def prompts() -> ScriptedPrompts:
    return ScriptedPrompts()


@pytest.fixture(autouse=True)
def fresh_provider_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions here build real providers; other tests expect none built yet in this process."""
    from atomic.core.providers import registry

    monkeypatch.setattr(registry, "_registered", dict(registry._registered))
