"""Shared test setup: every test gets its own agent dir and HOME, never the real ones."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.providers.scripted import ScriptedProvider
from tests.providers.sse_server import ScriptedServer
from tests.support import Recorder

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("home")
    agent = home / ".atomic" / "agent"
    agent.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ATOMIC_CODING_AGENT_DIR", str(agent))
    for var in (
        "PI_CODING_AGENT_DIR",
        "ATOMIC_CODING_AGENT_SESSION_DIR",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
        "XAI_API_KEY",
        "MISTRAL_API_KEY",
        "CEREBRAS_API_KEY",
        # Cloud credentials (Gemini, Vertex AI, Bedrock, Azure): tests never reach a real account.
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_CLOUD_API_KEY",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
        "GCLOUD_PROJECT",
        "GOOGLE_CLOUD_LOCATION",
        "CLOUDSDK_CONFIG",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_BEARER_TOKEN_BEDROCK",
        "AWS_CONFIG_FILE",
        "AWS_SHARED_CREDENTIALS_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
        "AZURE_OPENAI_API_KEY",
        "AZURE_OPENAI_AD_TOKEN",
        "AZURE_OPENAI_BASE_URL",
        "AZURE_OPENAI_RESOURCE_NAME",
        "NO_COLOR",
        "TEXTUAL_THEME",
    ):
        monkeypatch.delenv(var, raising=False)
    from atomic.core.models.catalog import shipped_providers

    # Every variable a built-in provider reads (a key in the CI environment must not configure one).
    for spec in shipped_providers().values():
        for var in [spec.get("envVar"), *spec.get("envVars", ()), *spec.get("optInEnv", ())]:
            if var:
                monkeypatch.delenv(var, raising=False)
    for var in ("ATOMIC_TEST_GITHUB_URL", "ATOMIC_TEST_GITHUB_API_URL", "ATOMIC_TEST_OPENAI_AUTH_URL",
                "ATOMIC_TEST_CODEX_CALLBACK_PORT", "ATOMIC_MODELS_DEV_URL", "CLOUDFLARE_ACCOUNT_ID",
                "CLOUDFLARE_GATEWAY_ID"):
        monkeypatch.delenv(var, raising=False)
    return agent


@pytest.fixture
def agent_dir(isolated_home: Path) -> Path:
    return isolated_home


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty project folder (the session's cwd)."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    return cwd


SessionMaker = Callable[..., Any]


@pytest.fixture
async def make_session(workdir: Path) -> AsyncIterator[SessionMaker]:
    """`await make_session(responses, **options)` -> (session, provider, recorder) on the scripted provider in
    `workdir`; every session made is shut down after the test."""
    sessions: list[AgentSession] = []

    async def factory(
        responses: list[dict[str, Any]] | None = None, **kwargs: Any
    ) -> tuple[AgentSession, ScriptedProvider, Recorder]:
        provider = ScriptedProvider(responses or [])
        options = SessionOptions(cwd=workdir, scripted=provider, **kwargs)
        session = await create_session(options)
        sessions.append(session)
        return session, provider, Recorder(session)

    yield factory
    for session in sessions:
        await session.shutdown()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    """A scripted SSE server on 127.0.0.1 that the real SDKs talk to (tests/providers/sse_server.py)."""
    scripted = ScriptedServer().start()
    yield scripted
    scripted.stop()


ScriptWriter = Callable[[list[dict[str, Any]]], Path]


@pytest.fixture
def write_script(tmp_path: Path) -> ScriptWriter:
    """Write a scripted-provider script (a list of responses) to a file and return its path."""
    counter = iter(range(1_000_000))

    def write(responses: list[dict[str, Any]]) -> Path:
        path = tmp_path / f"script-{next(counter)}.json"
        path.write_text(json.dumps(responses), encoding="utf-8")
        return path

    return write


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("ATOMIC_TEST", "1")


@pytest.fixture(autouse=True)
def snapshots_in_repo_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-textual-snapshot SVGs go to `<repo>/snapshots/<test module>/`, not next to each test file.

    `snap_compare` looks up `pytest_textual_snapshot.SVGImageExtension` each time it runs, so a
    subclass with its own `dirname` takes effect for every snapshot test.
    """
    import pytest_textual_snapshot

    class RepoFolderSVGExtension(pytest_textual_snapshot.SVGImageExtension):
        @classmethod
        def dirname(cls, *, test_location: object) -> str:
            return str(ROOT / "snapshots" / test_location.basename)  # type: ignore[attr-defined]

    monkeypatch.setattr(pytest_textual_snapshot, "SVGImageExtension", RepoFolderSVGExtension)
