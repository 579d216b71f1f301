from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.auth import AuthStorage
from atomic.core.models.registry import LOCAL_PLACEHOLDER_KEY, ModelRegistry
from atomic.core.records import AuthStatus


def test_nothing_configured_on_a_fresh_machine(make_registry: Callable[..., ModelRegistry]) -> None:
    registry = make_registry()
    assert registry.available_models() == []
    assert registry.auth_status("anthropic") == AuthStatus(configured=False)
    assert registry.api_key_for("anthropic") is None
    # Ollama is keyless but must not count until the user opts in.
    assert registry.auth_status("ollama") == AuthStatus(configured=False)
    assert registry.api_key_for("ollama") is None


def test_resolution_order_runtime_stored_env_models_json(
    agent_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    write_models_json: Callable[[Any], Path],
    make_registry: Callable[..., ModelRegistry],
) -> None:
    write_models_json({"providers": {"openai": {"apiKey": "from-models-json"}}})
    registry = make_registry()
    assert registry.api_key_for("openai") == "from-models-json"
    assert registry.auth_status("openai") == AuthStatus(configured=True, source="models_json")

    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    assert registry.api_key_for("openai") == "from-env"
    assert registry.auth_status("openai") == AuthStatus(configured=True, source="environment", label="OPENAI_API_KEY")

    AuthStorage(agent_dir).set_api_key("openai", "from-auth-json")
    registry.reload()
    assert registry.api_key_for("openai") == "from-auth-json"
    assert registry.auth_status("openai") == AuthStatus(configured=True, source="stored")

    with_runtime = make_registry(("openai", "from-cli"))
    assert with_runtime.api_key_for("openai") == "from-cli"
    assert with_runtime.auth_status("openai") == AuthStatus(configured=True, source="runtime")
    # The runtime key belongs to its provider only.
    assert with_runtime.api_key_for("anthropic") is None


def test_stored_key_as_env_name_and_command(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    auth = AuthStorage(agent_dir)
    auth.set_api_key("anthropic", "MY_OWN_ANTHROPIC_VAR")
    auth.set_api_key("groq", "!printf 'gsk-from-command'")
    monkeypatch.setenv("MY_OWN_ANTHROPIC_VAR", "sk-ant-via-named-env")
    registry = make_registry()
    assert registry.api_key_for("anthropic") == "sk-ant-via-named-env"
    assert registry.api_key_for("groq") == "gsk-from-command"


def test_models_json_api_key_command(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json(
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:1/v1",
                    "api": "openai-completions",
                    "apiKey": "!echo cmd-key",
                    "models": [{"id": "m"}],
                }
            }
        }
    )
    registry = make_registry()
    assert registry.api_key_for("local") == "cmd-key"


def test_failing_stored_command_falls_back_to_env(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    AuthStorage(agent_dir).set_api_key("xai", "!exit 1")
    monkeypatch.setenv("XAI_API_KEY", "xai-env")
    assert make_registry().api_key_for("xai") == "xai-env"


def test_available_models_follow_credentials(
    monkeypatch: pytest.MonkeyPatch, make_registry: Callable[..., ModelRegistry]
) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "ds")
    registry = make_registry()
    providers = {m.provider for m in registry.available_models()}
    assert providers == {"deepseek"}


@pytest.mark.parametrize(
    ("var", "value", "expected_url"),
    [
        ("OLLAMA_HOST", "gpu-box:11434", "http://gpu-box:11434/v1"),
        ("OLLAMA_HOST", "https://ollama.example/", "https://ollama.example/v1"),
        ("OLLAMA_API_KEY", "anything", "http://localhost:11434/v1"),
    ],
)
def test_ollama_opt_in_by_environment(
    var: str,
    value: str,
    expected_url: str,
    monkeypatch: pytest.MonkeyPatch,
    make_registry: Callable[..., ModelRegistry],
) -> None:
    monkeypatch.setenv(var, value)
    registry = make_registry()
    ollama = [m for m in registry.available_models() if m.provider == "ollama"]
    assert ollama and all(m.base_url == expected_url for m in ollama)
    assert registry.auth_status("ollama") == AuthStatus(configured=True, source="environment", label=var)
    expected_key = value if var == "OLLAMA_API_KEY" else LOCAL_PLACEHOLDER_KEY
    assert registry.api_key_for("ollama") == expected_key


def test_ollama_opt_in_by_models_json(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"ollama": {"models": [{"id": "my-local:7b"}]}}})
    registry = make_registry()
    assert registry.auth_status("ollama") == AuthStatus(configured=True, source="models_json")
    assert registry.api_key_for("ollama") == LOCAL_PLACEHOLDER_KEY
    mine = registry.find("ollama", "my-local:7b")
    assert (
        mine is not None and mine.base_url == "http://localhost:11434/v1" and mine.api == "openai-completions"
    )


def test_headers_are_resolved(
    monkeypatch: pytest.MonkeyPatch,
    write_models_json: Callable[[Any], Path],
    make_registry: Callable[..., ModelRegistry],
) -> None:
    monkeypatch.setenv("TEAM_HEADER_VAR", "team-42")
    write_models_json(
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:1/v1",
                    "api": "openai-completions",
                    "apiKey": "secret-local",
                    "authHeader": True,
                    "headers": {"x-team": "TEAM_HEADER_VAR", "x-cmd": "!echo from-cmd", "x-fixed": "literal"},
                    "models": [{"id": "m"}],
                }
            }
        }
    )
    registry = make_registry()
    model = registry.find("local", "m")
    assert model is not None
    assert registry.headers_for(model) == {
        "x-team": "team-42",
        "x-cmd": "from-cmd",
        "x-fixed": "literal",
        "Authorization": "Bearer secret-local",
    }
    builtin = registry.find("anthropic", "claude-haiku-4-5")
    assert builtin is not None and registry.headers_for(builtin) == {}


def test_keys_never_leak_into_repr_or_logs(
    agent_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    write_models_json: Callable[[Any], Path],
    make_registry: Callable[..., ModelRegistry],
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env-SECRET")
    AuthStorage(agent_dir).set_api_key("openai", "sk-stored-SECRET")
    write_models_json(
        {
            "providers": {
                "local": {
                    "baseUrl": "http://x/v1",
                    "api": "openai-completions",
                    "apiKey": "sk-json-SECRET",
                    "models": [{"id": "m"}],
                }
            }
        }
    )
    registry = make_registry(("groq", "sk-runtime-SECRET"))
    for provider in registry.providers():
        registry.api_key_for(provider)
    texts = [repr(registry), str(registry), repr(registry.auth), repr(registry._configs)]
    texts += [repr(m) for m in registry.all_models()] + [str(m.to_wire()) for m in registry.all_models()]
    texts += [str(registry.auth_status(p)) for p in registry.providers()]
    texts += [caplog.text]
    assert not any("SECRET" in text for text in texts)
