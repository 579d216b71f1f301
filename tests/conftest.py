"""Shared test setup: every test gets its own agent dir and HOME, never the real ones."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
        "NO_COLOR",
        "TEXTUAL_THEME",
    ):
        monkeypatch.delenv(var, raising=False)
    return agent


@pytest.fixture
def agent_dir(isolated_home: Path) -> Path:
    return isolated_home


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("ATOMIC_TEST", "1")
