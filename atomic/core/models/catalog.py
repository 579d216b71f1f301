"""The built-in model catalog (`catalog.json`, shipped as package data), read on first use."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

# Provenance of each figure, kept next to the data in catalog.json. It is documentation for people
# and for the catalog test; models are built without it, and models.json never needs it.
FIGURES = ("contextWindow", "maxTokens", "cost", "reasoning", "input")
_PROVENANCE_KEYS = ("source", "sources", "checked", "confirmed", "status", "note")
# A provider's word on a model's lifecycle; any other value in catalog.json is a mistake.
MODEL_STATUSES = ("deprecated", "retired")


@dataclass(frozen=True)
class ModelProvenance:
    """Where a built-in model's figures come from: one URL per figure, the date they were checked."""

    sources: dict[str, str]
    checked: str | None
    note: str | None
    # The figures that were re-read on the provider's page on the `checked` date; the others are
    # carried over from an earlier pass and the note says why.
    confirmed: tuple[str, ...] = ()
    status: str | None = None

    def source_for(self, figure: str) -> str | None:
        return self.sources.get(figure)


@dataclass(frozen=True)
class BuiltinProvider:
    name: str
    display_name: str
    api: str
    base_url: str
    env_var: str | None
    # Further variables that hold the same key, looked at after `env_var` (GOOGLE_API_KEY for Gemini).
    env_vars: tuple[str, ...] = ()
    # A local server that needs no key (Ollama). It only counts as configured after the user
    # opts in, so a fresh machine never picks a model nobody is serving.
    keyless: bool = False
    opt_in_env: tuple[str, ...] = ()
    default_model: str | None = None
    compat: dict[str, Any] | None = None
    models: tuple[dict[str, Any], ...] = field(default_factory=tuple)
    provenance: dict[str, ModelProvenance] = field(default_factory=dict)


@lru_cache(maxsize=1)
def _raw_catalog() -> dict[str, Any]:
    text = resources.files("atomic.core.models").joinpath("catalog.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("providers"), dict):
        raise RuntimeError("atomic/core/models/catalog.json is malformed: no providers object")
    return data


@lru_cache(maxsize=1)
def builtin_providers() -> dict[str, BuiltinProvider]:
    """Built-in providers in catalog order (that order is also the preference order)."""
    providers: dict[str, BuiltinProvider] = {}
    for name, spec in _raw_catalog()["providers"].items():
        providers[name] = BuiltinProvider(
            name=name,
            display_name=spec.get("name", name),
            api=spec["api"],
            base_url=spec["baseUrl"],
            env_var=spec.get("envVar"),
            env_vars=tuple(v for v in spec.get("envVars", ()) if v != spec.get("envVar")),
            keyless=bool(spec.get("keyless", False)),
            opt_in_env=tuple(spec.get("optInEnv", ())),
            default_model=spec.get("defaultModel"),
            compat=spec.get("compat"),
            models=tuple(_without_provenance(m) for m in spec.get("models", ())),
            provenance={m["id"]: _provenance(m) for m in spec.get("models", ())},
        )
    return providers


def _without_provenance(model: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in model.items() if k not in _PROVENANCE_KEYS}


def _provenance(model: dict[str, Any]) -> ModelProvenance:
    # "source" is the page that gives every figure; "sources" names a different page for some of them.
    default = model.get("source")
    overrides = model.get("sources") or {}
    sources = {
        figure: url
        for figure in FIGURES
        if isinstance(url := overrides.get(figure, default), str) and url
    }
    checked = model.get("checked")
    note = model.get("note")
    confirmed = model.get("confirmed")
    status = model.get("status")
    return ModelProvenance(
        sources=sources,
        checked=checked if isinstance(checked, str) else None,
        note=note if isinstance(note, str) else None,
        confirmed=tuple(f for f in confirmed if isinstance(f, str)) if isinstance(confirmed, list) else (),
        status=status if isinstance(status, str) else None,
    )


def builtin_model_defs(provider: str) -> list[dict[str, Any]]:
    """Fresh copies of a provider's model definitions (callers may mutate them)."""
    spec = builtin_providers().get(provider)
    return copy.deepcopy(list(spec.models)) if spec else []


def builtin_model_provenance(provider: str, model_id: str) -> ModelProvenance | None:
    spec = builtin_providers().get(provider)
    return spec.provenance.get(model_id) if spec else None


def env_var_for(provider: str) -> str | None:
    spec = builtin_providers().get(provider)
    return spec.env_var if spec else None
