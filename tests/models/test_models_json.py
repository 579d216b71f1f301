from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.models.registry import ModelRegistry
from atomic.core.records import AuthStatus

LOCAL_PROVIDER = {
    "baseUrl": "http://127.0.0.1:8000/v1",
    "api": "openai-completions",
    "apiKey": "dummy",
    "headers": {"x-extra": "provider-value", "x-shared": "provider"},
    "compat": {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"},
    "models": [
        {
            "id": "test-model",
            "name": "Test Model",
            "contextWindow": 32768,
            "maxTokens": 4096,
            "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0},
        },
        {
            "id": "think-model",
            "reasoning": True,
            "api": "anthropic-messages",
            "baseUrl": "http://other:9000",
            "headers": {"x-shared": "model"},
            "compat": {"maxTokensField": "max_completion_tokens"},
            "thinkingLevelMap": {"minimal": None, "xhigh": "max"},
        },
    ],
}


def test_comments_and_trailing_commas_are_accepted(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json(
        """{
          // a local server
          "providers": {
            "local": {
              "baseUrl": "http://127.0.0.1:8000/v1", /* block comment */
              "api": "openai-completions",
              "apiKey": "dummy",
              "models": [{"id": "m1",},],
            },
          },
        }"""
    )
    registry = make_registry()
    assert registry.errors == []
    model = registry.find("local", "m1")
    assert model is not None
    assert model.name == "m1"  # name defaults to the id
    assert (model.context_window, model.max_tokens, model.reasoning, model.input) == (
        128000,
        16384,
        False,
        ["text"],
    )


def test_custom_provider_fields_and_precedence(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"local": LOCAL_PROVIDER}})
    registry = make_registry()
    assert registry.errors == []
    assert "local" in registry.providers()

    plain = registry.find("local", "test-model")
    assert plain is not None
    assert plain.api == "openai-completions"
    assert plain.base_url == "http://127.0.0.1:8000/v1"
    assert plain.headers == {"x-extra": "provider-value", "x-shared": "provider"}
    assert plain.compat == {"supportsDeveloperRole": False, "maxTokensField": "max_tokens"}
    assert (plain.cost.input, plain.cost.output, plain.cost.cache_read) == (1.0, 2.0, 0.5)

    thinker = registry.find("local", "think-model")
    assert thinker is not None
    assert thinker.api == "anthropic-messages"
    assert thinker.base_url == "http://other:9000"
    assert thinker.headers == {"x-extra": "provider-value", "x-shared": "model"}
    assert thinker.compat == {"supportsDeveloperRole": False, "maxTokensField": "max_completion_tokens"}
    assert thinker.thinking_level_map == {"minimal": None, "xhigh": "max"}
    # models.json apiKey makes the provider usable
    assert {m.id for m in registry.available_models()} == {"test-model", "think-model"}


def test_builtin_provider_base_url_proxies_all_builtin_models(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"anthropic": {"baseUrl": "https://proxy.example/anthropic"}}})
    registry = make_registry()
    anthropic = [m for m in registry.all_models() if m.provider == "anthropic"]
    assert anthropic and all(m.base_url == "https://proxy.example/anthropic" for m in anthropic)
    assert all(
        m.base_url == "https://api.openai.com/v1" for m in registry.all_models() if m.provider == "openai"
    )


def test_builtin_provider_models_are_upserted(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json(
        {
            "providers": {
                "openai": {
                    "models": [
                        {"id": "gpt-4o", "name": "My 4o", "contextWindow": 1000},
                        {"id": "gpt-new-preview", "reasoning": True},
                    ]
                }
            }
        }
    )
    registry = make_registry()
    assert registry.errors == []
    replaced = registry.find("openai", "gpt-4o")
    assert replaced is not None and replaced.name == "My 4o" and replaced.context_window == 1000
    added = registry.find("openai", "gpt-new-preview")
    assert added is not None
    assert added.api == "openai-responses" and added.base_url == "https://api.openai.com/v1"
    assert len([m for m in registry.all_models() if m.id == "gpt-4o" and m.provider == "openai"]) == 1


def test_model_overrides_merge_partially(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    builtin = make_registry().find("anthropic", "claude-sonnet-4-5")
    assert builtin is not None
    write_models_json(
        {
            "providers": {
                "anthropic": {
                    "headers": {"x-team": "core"},
                    "modelOverrides": {
                        "claude-sonnet-4-5": {
                            "name": "Sonnet (work)",
                            "cost": {"input": 1.5},
                            "contextWindow": 1000000,
                            "compat": {"supportsLongCacheRetention": True},
                        },
                        "no-such-model": {"name": "ghost"},
                    },
                }
            }
        }
    )
    registry = make_registry()
    assert registry.errors == []
    model = registry.find("anthropic", "claude-sonnet-4-5")
    assert model is not None
    assert model.name == "Sonnet (work)"
    assert model.context_window == 1000000
    assert model.cost.input == 1.5
    assert model.cost.output == builtin.cost.output  # untouched part of the partial cost
    assert model.compat == {"supportsLongCacheRetention": True}
    assert model.headers == {"x-team": "core"}
    assert model.max_tokens == builtin.max_tokens
    assert any("no-such-model" in w for w in registry.warnings)


@pytest.mark.parametrize(
    ("providers", "expected"),
    [
        (
            {"anthropic": {}},
            'Provider anthropic: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".',
        ),
        (
            {"mine": {"api": "openai-completions", "apiKey": "k", "models": [{"id": "a"}]}},
            'Provider mine: "baseUrl" is required when defining custom models.',
        ),
        (
            {"mine": {"api": "openai-completions", "baseUrl": "http://x/v1", "models": [{"id": "a"}]}},
            'Provider mine: "apiKey" is required when defining custom models.',
        ),
        (
            {"mine": {"baseUrl": "http://x/v1", "apiKey": "k", "models": [{"id": "a"}]}},
            'Provider mine, model a: no "api" specified. Set at provider or model level.',
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"id": "a", "contextWindow": 0}]}},
            "Provider mine, model a: invalid contextWindow",
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"id": "a", "maxTokens": -5}]}},
            "Provider mine, model a: invalid maxTokens",
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"name": "no id"}]}},
            'Provider mine, model #1: "id" is required',
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "api": "carrier-pigeon"}},
            'Provider mine: unknown api "carrier-pigeon"',
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"id": "a", "thinkingLevelMap": {"extreme": "x"}}]}},
            'Provider mine, model a: thinkingLevelMap has unknown level "extreme"',
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"id": "a", "input": ["text", "audio"]}]}},
            'Provider mine, model a: "input" must be',
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "models": [{"id": "a", "cost": {"input": "cheap"}}]}},
            "Provider mine, model a: invalid cost.input",
        ),
        (
            {"anthropic": {"modelOverrides": {"claude-haiku-4-5": {"maxTokens": 0}}}},
            "Provider anthropic, model override claude-haiku-4-5: invalid maxTokens",
        ),
        (
            {"mine": {**LOCAL_PROVIDER, "headers": {"x": 1}}},
            'Provider mine: "headers" must be an object of string values.',
        ),
    ],
)
def test_validation_messages_keep_builtins(
    providers: dict[str, Any],
    expected: str,
    write_models_json: Callable[[Any], Path],
    make_registry: Callable[..., ModelRegistry],
) -> None:
    write_models_json({"providers": providers})
    registry = make_registry()
    assert any(expected in error for error in registry.errors), registry.errors
    assert all(error.startswith("models.json: ") for error in registry.errors)
    # The whole file is ignored; built-ins still work.
    assert registry.find("anthropic", "claude-sonnet-4-5") is not None
    assert registry.find("mine", "a") is None
    assert "mine" not in registry.providers()


def test_invalid_json_keeps_builtins(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json('{"providers": {"local": ')
    registry = make_registry()
    assert len(registry.errors) == 1 and "invalid JSON" in registry.errors[0]
    assert len(registry.all_models()) > 20


def test_api_key_alone_is_enough_for_a_builtin_provider(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"groq": {"apiKey": "gsk-literal"}}})
    registry = make_registry()
    assert registry.errors == []
    assert registry.api_key_for("groq") == "gsk-literal"
    assert registry.auth_status("groq") == AuthStatus(configured=True, source="models_json")


def test_reload_picks_up_changes(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    registry = make_registry()
    assert registry.find("local", "test-model") is None
    write_models_json({"providers": {"local": LOCAL_PROVIDER}})
    registry.reload()
    assert registry.find("local", "test-model") is not None
    write_models_json("{ not json")
    registry.reload()
    assert registry.find("local", "test-model") is None
    assert registry.errors
