"""Shared fixtures for the model tests: no Ollama opt-in leaks in from the real environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.auth import AuthStorage
from atomic.core.models.registry import ModelRegistry


@pytest.fixture(autouse=True)
def _no_ollama_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OLLAMA_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def write_models_json(agent_dir: Path) -> Callable[[Any], Path]:
    def write(content: Any) -> Path:
        path = agent_dir / "models.json"
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    return write


@pytest.fixture
def make_registry(agent_dir: Path) -> Callable[..., ModelRegistry]:
    def make(runtime_api_key: tuple[str, str] | None = None) -> ModelRegistry:
        return ModelRegistry(agent_dir, AuthStorage(agent_dir), runtime_api_key)

    return make
