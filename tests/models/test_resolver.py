from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.models.registry import ModelRegistry
from atomic.core.models.resolver import (
    ModelResolutionError,
    choose_initial_model,
    resolve_model,
    resolve_scoped_models,
)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]) -> ModelRegistry:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    return make_registry()


@pytest.mark.parametrize(
    ("pattern", "key", "level"),
    [
        ("claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", None),
        ("CLAUDE-SONNET-4-5", "anthropic/claude-sonnet-4-5", None),
        ("anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5", None),
        ("Anthropic/haiku", "anthropic/claude-haiku-4-5", None),
        ("sonnet:high", "anthropic/claude-sonnet-4-6", "high"),
        ("sonnet-4-5:minimal", "anthropic/claude-sonnet-4-5", "minimal"),
        ("*opus-4-1*", "anthropic/claude-opus-4-1", None),
        ("gpt-5", "openai/gpt-5", None),
        # provider/id wins over OpenRouter's id "openai/gpt-5"
        ("openai/gpt-5", "openai/gpt-5", None),
        ("openrouter/openai/gpt-5", "openrouter/openai/gpt-5", None),
        ("4o", "openai/gpt-4o", None),
        ("4o-mini", "openai/gpt-4o-mini", None),
        # an alias beats a dated snapshot
        ("sonnet-4", "anthropic/claude-sonnet-4-6", None),
        ("Claude Opus 4.1", "anthropic/claude-opus-4-1", None),
    ],
)
def test_resolve_patterns(registry: ModelRegistry, pattern: str, key: str, level: str | None) -> None:
    resolved = resolve_model(registry, pattern)
    assert (resolved.model.key, resolved.thinking_level) == (key, level)


def test_available_provider_preferred_for_shared_names(
    monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    monkeypatch.setenv("OPENROUTER_API_KEY", "or")
    registry = make_registry()
    assert resolve_model(registry, "sonnet").model.provider == "openrouter"


def test_ids_with_colons_are_not_mistaken_for_levels(
    monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "localhost:11434")
    registry = make_registry()
    assert resolve_model(registry, "gpt-oss:20b").model.key == "ollama/gpt-oss:20b"
    resolved = resolve_model(registry, "gpt-oss:20b:high")
    assert (resolved.model.key, resolved.thinking_level) == ("ollama/gpt-oss:20b", "high")


def test_provider_narrowing(registry: ModelRegistry) -> None:
    assert resolve_model(registry, "gpt-5", provider="OpenRouter").model.key == "openrouter/openai/gpt-5"
    assert resolve_model(registry, "sonnet", provider="anthropic").model.provider == "anthropic"


def test_unknown_provider_error(registry: ModelRegistry) -> None:
    with pytest.raises(ModelResolutionError) as info:
        resolve_model(registry, "sonnet", provider="nope")
    assert (
        str(info.value) == 'Unknown provider "nope". Use --list-models to see available providers and models.'
    )


def test_unknown_model_errors(registry: ModelRegistry) -> None:
    with pytest.raises(ModelResolutionError, match=r'^Model "zzz-not-a-model" not found\. Use --list-models'):
        resolve_model(registry, "zzz-not-a-model")
    with pytest.raises(ModelResolutionError, match='Model "gpt-5" not found for provider "anthropic"'):
        resolve_model(registry, "gpt-5", provider="anthropic")
    with pytest.raises(ModelResolutionError):
        resolve_model(registry, "  ")


def test_scoped_models(registry: ModelRegistry) -> None:
    warnings: list[str] = []
    scoped = resolve_scoped_models(
        registry,
        ["anthropic/claude-opus-4-*", "sonnet:high", "gpt-5", "claude-opus-4-5", "groq/*", "nothing-here"],
        warnings=warnings,
    )
    keys = [(m.key, level) for m, level in scoped]
    assert keys[:4] == [
        ("anthropic/claude-opus-4-7", None),
        ("anthropic/claude-opus-4-6", None),
        ("anthropic/claude-opus-4-5", None),
        ("anthropic/claude-opus-4-1", None),
    ]
    assert ("anthropic/claude-sonnet-4-6", "high") in keys
    assert ("openai/gpt-5", None) in keys
    assert len(keys) == len({k for k, _ in keys})  # claude-opus-4-5 is not repeated
    assert not any(k.startswith("groq/") for k, _ in keys)  # no key for groq
    assert warnings == ['No available model matches "groq/*".', 'No available model matches "nothing-here".']


def test_choose_initial_model_order(
    registry: ModelRegistry, write_models_json: Callable[[Any], Path]
) -> None:
    haiku = registry.find("anthropic", "claude-haiku-4-5")
    assert haiku is not None
    assert choose_initial_model(registry, cli_model="gpt-4o").key == "openai/gpt-4o"  # type: ignore[union-attr]
    assert choose_initial_model(registry, cli_provider="openai").key == "openai/gpt-5.4"  # type: ignore[union-attr]
    assert choose_initial_model(registry, scoped=[(haiku, "low")]) is haiku
    chosen = choose_initial_model(registry, default_provider="openai", default_model="o3")
    assert chosen is not None and chosen.key == "openai/o3"
    # A settings default without a key is skipped in favour of a provider's preferred default.
    chosen = choose_initial_model(registry, default_provider="groq", default_model="llama-3.3-70b-versatile")
    assert chosen is not None and chosen.key == "anthropic/claude-opus-4-7"
    with pytest.raises(ModelResolutionError, match="Unknown provider"):
        choose_initial_model(registry, cli_provider="nope")


def test_choose_initial_model_falls_back_to_first_available(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    assert choose_initial_model(make_registry()) is None
    write_models_json(
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:1/v1",
                    "api": "openai-completions",
                    "apiKey": "none",
                    "models": [{"id": "first"}, {"id": "second"}],
                }
            }
        }
    )
    chosen = choose_initial_model(make_registry())
    assert chosen is not None and chosen.key == "local/first"
