"""`--provider X --model Y` builds X's models only: the catalog holds hundreds, and start-up should
not validate models it will never show."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from atomic.core.model_types import Model
from atomic.core.models.registry import ModelRegistry
from atomic.core.models.resolver import choose_initial_model, resolve_model


def record_built_providers(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = ModelRegistry._provider_models

    def recording(self: ModelRegistry, name: str) -> list[Model]:
        seen.append(name)
        return original(self, name)

    monkeypatch.setattr(ModelRegistry, "_provider_models", recording)
    return seen


def test_a_narrowed_pattern_builds_only_that_providers_models(
    monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    registry = make_registry()
    seen = record_built_providers(monkeypatch)
    assert resolve_model(registry, "claude-sonnet-4-5", provider="anthropic").model.key == "anthropic/claude-sonnet-4-5"
    assert set(seen) == {"anthropic"}


def test_a_provider_alone_builds_only_its_models(
    monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    registry = make_registry()
    seen = record_built_providers(monkeypatch)
    model = choose_initial_model(registry, cli_provider="anthropic")
    assert model is not None and model.provider == "anthropic"
    assert set(seen) == {"anthropic"}

