"""Every figure of the built-in catalog names the provider page it was taken from."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlparse

import pytest

from atomic.core.models.catalog import FIGURES, MODEL_STATUSES, builtin_model_provenance, builtin_providers
from atomic.core.models.registry import ModelRegistry

# The provider's own documentation only: a figure copied from an aggregator or a blog is not a source.
PROVIDER_HOSTS: dict[str, tuple[str, ...]] = {
    "anthropic": ("platform.claude.com", "docs.claude.com", "www.anthropic.com", "claude.com"),
    "openai": ("developers.openai.com", "platform.openai.com", "openai.com"),
    "xai": ("docs.x.ai",),
    "deepseek": ("api-docs.deepseek.com",),
    "mistral": ("docs.mistral.ai", "mistral.ai"),
    "groq": ("console.groq.com", "groq.com"),
    "cerebras": ("inference-docs.cerebras.ai", "www.cerebras.ai"),
    "openrouter": ("openrouter.ai",),
    "ollama": ("ollama.com",),
    "google": ("ai.google.dev",),
    "google-vertex": ("cloud.google.com", "docs.cloud.google.com"),
    "amazon-bedrock": ("docs.aws.amazon.com", "aws.amazon.com"),
    "azure-openai-responses": ("learn.microsoft.com", "azure.microsoft.com"),
}

# The long tail is built from models.dev (scripts/build_catalog.py), which every such figure cites;
# Atomic's corrections on top cite the provider's page.
MODELS_DEV_HOSTS = ("models.dev", "docs.github.com", "help.openai.com")
for _name, _spec in builtin_providers().items():
    if _spec.from_models_dev:
        PROVIDER_HOSTS[_name] = MODELS_DEV_HOSTS

ALL_MODELS = [(name, model["id"]) for name, spec in builtin_providers().items() for model in spec.models]


def test_every_provider_has_an_allowed_host_list() -> None:
    assert set(PROVIDER_HOSTS) == set(builtin_providers())


@pytest.mark.parametrize(("provider", "model_id"), ALL_MODELS, ids=[f"{p}/{m}" for p, m in ALL_MODELS])
def test_every_figure_has_a_provider_source(provider: str, model_id: str) -> None:
    provenance = builtin_model_provenance(provider, model_id)
    assert provenance is not None
    for figure in FIGURES:
        url = provenance.source_for(figure)
        assert url, f"{provider}/{model_id}: no source for {figure}"
        parsed = urlparse(url)
        assert parsed.scheme == "https", url
        assert parsed.hostname in PROVIDER_HOSTS[provider], f"{provider}/{model_id}: {url} is not the provider's"
    assert provenance.checked is not None and re.fullmatch(r"\d{4}-\d{2}-\d{2}", provenance.checked)


@pytest.mark.parametrize(("provider", "model_id"), ALL_MODELS, ids=[f"{p}/{m}" for p, m in ALL_MODELS])
def test_unconfirmed_figures_are_explained(provider: str, model_id: str) -> None:
    # A figure that was not re-read on the provider's page must not look as trustworthy as one
    # that was: the model's note says which figures are carried over and what was searched.
    provenance = builtin_model_provenance(provider, model_id)
    assert provenance is not None
    assert set(provenance.confirmed) <= set(FIGURES), provenance.confirmed
    if set(provenance.confirmed) != set(FIGURES):
        assert provenance.note and len(provenance.note) > 40, f"{provider}/{model_id}: unconfirmed figures, no note"
    if provenance.status is not None:
        assert provenance.status in MODEL_STATUSES
        assert provenance.note, f"{provider}/{model_id} is {provenance.status} but says nothing about it"


def test_provenance_stays_out_of_models(make_registry: Callable[..., ModelRegistry]) -> None:
    # The loader keeps sources for people and tests; a Model never carries them, and the
    # definitions handed to the registry (and merged with models.json) do not either.
    for spec in builtin_providers().values():
        for model in spec.models:
            assert not {"source", "sources", "checked", "note"} & set(model)
    registry = make_registry()
    wire = registry.all_models()[0].to_wire()
    assert "source" not in wire and "sources" not in wire


def test_unknown_model_has_no_provenance() -> None:
    assert builtin_model_provenance("anthropic", "no-such-model") is None
    assert builtin_model_provenance("no-such-provider", "x") is None


@pytest.mark.parametrize(
    ("provider", "model_id", "figures"),
    [
        # Figures where the catalog once disagreed with pi, settled from the provider's own page.
        ("anthropic", "claude-opus-4-7", {"context_window": 1_000_000, "max_tokens": 128_000}),
        ("anthropic", "claude-opus-4-6", {"context_window": 1_000_000, "max_tokens": 128_000}),
        ("anthropic", "claude-sonnet-4-6", {"context_window": 1_000_000, "max_tokens": 128_000}),
        ("openai", "gpt-5.4", {"context_window": 1_050_000, "max_tokens": 128_000}),
        ("openai", "gpt-5.1", {"context_window": 400_000, "max_tokens": 128_000, "reasoning": True}),
        ("openai", "gpt-5-mini", {"context_window": 400_000, "max_tokens": 128_000}),
        ("openrouter", "anthropic/claude-sonnet-4.5", {"context_window": 1_000_000}),
        ("mistral", "mistral-medium-latest", {"context_window": 262_144, "reasoning": True}),
        ("deepseek", "deepseek-flash", {"context_window": 1_000_000, "max_tokens": 384_000}),
    ],
)
def test_settled_figures(
    make_registry: Callable[..., ModelRegistry], provider: str, model_id: str, figures: dict[str, object]
) -> None:
    model = make_registry().find(provider, model_id)
    assert model is not None
    for name, value in figures.items():
        assert model.model_dump()[name] == value, name


@pytest.mark.parametrize(
    ("provider", "model_id"),
    [
        ("anthropic", "claude-sonnet-4-20250514"),
        ("anthropic", "claude-opus-4-20250514"),
        ("openai", "gpt-5-codex"),
        ("cerebras", "llama-3.3-70b"),
        ("openai", "gpt-4.1-nano"),  # OpenAI's page shows it shut down (2026-12-03)
    ],
)
def test_retired_models_are_gone(make_registry: Callable[..., ModelRegistry], provider: str, model_id: str) -> None:
    assert make_registry().find(provider, model_id) is None


def test_confirmed_prices_match_the_provider_pages(make_registry: Callable[..., ModelRegistry]) -> None:
    # Prices re-read on 2026-12-03; a change here must come with a new source and date.
    registry = make_registry()
    expected = {
        ("openai", "gpt-5.4"): (2.5, 15, 0.25),
        ("openai", "gpt-5.1"): (1.25, 10, 0.125),
        ("openai", "gpt-5-mini"): (0.25, 2, 0.025),
        ("openai", "gpt-5-nano"): (0.05, 0.4, 0.005),
        ("openrouter", "openai/gpt-5-mini"): (0.25, 2, None),
        ("cerebras", "gpt-oss-120b"): (0.35, 0.75, None),
    }
    for (provider, model_id), (price_in, price_out, cache_read) in expected.items():
        model = registry.find(provider, model_id)
        assert model is not None
        assert (model.cost.input, model.cost.output) == (price_in, price_out), model_id
        if cache_read is not None:
            assert model.cost.cache_read == cache_read, model_id


def test_retired_models_that_stay_say_so() -> None:
    for provider, model_id in [("anthropic", "claude-sonnet-4-5"), ("deepseek", "deepseek-chat")]:
        provenance = builtin_model_provenance(provider, model_id)
        assert provenance is not None and provenance.status == "retired"
