from __future__ import annotations

from collections.abc import Callable

import pytest

from atomic.core.messages import Usage
from atomic.core.model_types import Model, ModelCost
from atomic.core.models.catalog import builtin_providers
from atomic.core.models.cost import compute_cost
from atomic.core.models.registry import ModelRegistry
from atomic.core.models.resolver import format_models_table, format_token_count
from atomic.core.models.setup_help import no_model_message
from atomic.core.models.thinking import supported_levels
from atomic.core.providers.base import THINKING_LEVELS


def test_compute_cost() -> None:
    model = Model(id="m", cost=ModelCost(input=3, output=15, cache_read=0.3, cache_write=3.75))
    usage = Usage(input=1000, output=2000, cache_read=10000, cache_write=4000, total_tokens=17000)
    compute_cost(model, usage)
    assert usage.cost.input == pytest.approx(0.003)
    assert usage.cost.output == pytest.approx(0.03)
    assert usage.cost.cache_read == pytest.approx(0.003)
    assert usage.cost.cache_write == pytest.approx(0.015)
    assert usage.cost.total == pytest.approx(0.051)


def test_compute_cost_free_model_is_zero() -> None:
    usage = Usage(input=5, output=5)
    compute_cost(Model(id="free"), usage)
    assert usage.cost.total == 0


@pytest.mark.parametrize(
    ("count", "text"),
    [(512, "512"), (8192, "8.2K"), (16384, "16.4K"), (200000, "200K"), (1000000, "1M"), (1047576, "1M")],
)
def test_format_token_count(count: int, text: str) -> None:
    assert format_token_count(count) == text


def test_models_table() -> None:
    models = [
        Model(id="zeta", provider="b", context_window=128000, max_tokens=4096),
        Model(
            id="alpha-long-name",
            provider="a",
            reasoning=True,
            input=["text", "image"],
            context_window=1000000,
            max_tokens=64000,
            cost=ModelCost(input=3, output=15, cache_read=0.3),
        ),
        Model(id="mid", provider="a", context_window=400000, max_tokens=128000, cost=ModelCost(input=0.05, output=0.4)),
    ]
    assert format_models_table(models).splitlines() == [
        "provider  model            context  max-out  $/MTok in/out  thinking  images",
        "a         alpha-long-name       1M      64K           3/15  yes       yes",
        "a         mid                 400K     128K       0.05/0.4  no        no",
        "b         zeta                128K     4.1K              -  no        no",
    ]
    # Filtering is case-insensitive and the columns shrink to what is shown.
    assert format_models_table(models, "ZETA").splitlines()[1:] == [
        "b         zeta      128K     4.1K              -  no        no"
    ]
    assert format_models_table(models, "nothing") == 'No models matching "nothing".'
    assert format_models_table([]) == "No models available."


def test_no_model_message_is_helpful(make_registry: Callable[..., ModelRegistry]) -> None:
    registry = make_registry()
    text = no_model_message(registry)
    for var in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "GROQ_API_KEY",
        "DEEPSEEK_API_KEY",
        "XAI_API_KEY",
        "MISTRAL_API_KEY",
        "CEREBRAS_API_KEY",
    ):
        assert f"export {var}=" in text
    assert "/login" in text
    assert str(registry.models_json_path) in text
    assert '"vllm"' in text and "localhost:8000" in text
    assert "OLLAMA_HOST" in text
    assert "atomic --login github-copilot" in text and "--list-providers" in text


def test_catalog_is_complete_and_consistent(make_registry: Callable[..., ModelRegistry]) -> None:
    providers = builtin_providers()
    assert list(providers)[:2] == ["anthropic", "openai"]
    expected_env = {
        "anthropic": "ANTHROPIC_API_KEY",
        "openai": "OPENAI_API_KEY",
        "openrouter": "OPENROUTER_API_KEY",
        "groq": "GROQ_API_KEY",
        "deepseek": "DEEPSEEK_API_KEY",
        "xai": "XAI_API_KEY",
        "mistral": "MISTRAL_API_KEY",
        "cerebras": "CEREBRAS_API_KEY",
    }
    for name, var in expected_env.items():
        assert providers[name].env_var == var
    assert providers["ollama"].keyless and providers["ollama"].base_url == "http://localhost:11434/v1"
    assert providers["anthropic"].api == "anthropic-messages"
    assert providers["openai"].api == "openai-responses"

    registry = make_registry()
    for name, spec in providers.items():
        own = [m for m in registry.all_models() if m.provider == name]
        if spec.keyless and spec.default_model is None:
            # A local server preset (llama.cpp, vLLM): the models are whatever the person serves,
            # listed in models.json.
            assert spec.models_dev is None or own, name
            continue
        assert own, name
        assert spec.default_model in {m.id for m in own}, name
        assert len({m.id for m in own}) == len(own), name
    for model in registry.all_models():
        assert model.context_window > 0 and 0 < model.max_tokens
        assert set(model.input) <= {"text", "image"}
        assert set(model.thinking_level_map or {}) <= set(THINKING_LEVELS)
        assert supported_levels(model)
    for wanted in (
        "claude-opus-4-5",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
        "claude-opus-4-1",
    ):
        assert registry.find("anthropic", wanted) is not None
    for wanted in ("gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4o", "o3", "o4-mini"):
        assert registry.find("openai", wanted) is not None
