"""Provider APIs are declared once, in providers/registry.py: the `Api` Literal and models.json's KNOWN_APIS agree
with the table, and each entry builds its provider and names its thinking parameters."""

from __future__ import annotations

from typing import get_args

import pytest

from atomic.core.model_types import Api, Model
from atomic.core.models.models_json import KNOWN_APIS
from atomic.core.providers import get_provider, known_apis, registry, thinking_params
from atomic.core.providers.registry import APIS, needs_api_key
from atomic.core.providers.scripted import ScriptedProvider


def test_the_api_literal_known_apis_and_the_table_agree() -> None:
    assert set(get_args(Api)) == set(KNOWN_APIS) == set(APIS)
    assert len(KNOWN_APIS) == len(set(KNOWN_APIS))
    assert set(APIS) <= set(known_apis())


def test_each_api_builds_its_provider_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_registered", {})  # a provider built here must not stay cached for other tests
    for api, spec in APIS.items():
        provider = get_provider(api)
        assert type(provider) is type(spec.create())
    assert isinstance(get_provider("scripted"), ScriptedProvider)


def test_thinking_parameters_per_api() -> None:
    model = Model(id="m", name="m", api="openai-responses", provider="p", reasoning=True, max_tokens=4096)
    assert APIS["anthropic-messages"].thinking_params is thinking_params.anthropic_params
    assert APIS["openai-completions"].thinking_params is thinking_params.completions_params
    responses = APIS["openai-responses"].thinking_params
    assert responses is not None and responses(model, "high") == thinking_params.responses_params(model, "high")
    assert APIS["scripted"].thinking_params is None


def test_only_the_scripted_api_runs_without_a_key() -> None:
    assert [api for api in APIS if not needs_api_key(api)] == ["scripted"]
    assert needs_api_key("carrier-pigeon")
    assert all(spec.warm_up is not None for api, spec in APIS.items() if api != "scripted")
