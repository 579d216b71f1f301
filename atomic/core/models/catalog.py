"""The built-in model catalog (`catalog.json`, shipped as package data), read on first use."""

from __future__ import annotations

import copy
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from atomic.core.paths import agent_dir

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
    key_env_vars: tuple[str, ...] = ()
    # A local server that needs no key (Ollama). It only counts as configured after the user
    # opts in, so a fresh machine never picks a model nobody is serving.
    keyless: bool = False
    opt_in_env: tuple[str, ...] = ()
    default_model: str | None = None
    compat: dict[str, Any] | None = None
    # How it is reached: an API key, a subscription login (oauth), cloud credentials, or nothing
    # (a local server).
    auth: str = "api-key"
    # Every variable it reads: the key's, then those its base URL names (Cloudflare's account id).
    env_vars: tuple[str, ...] = ()
    # The models.dev provider its models and figures come from (scripts/build_catalog.py); None for
    # the providers Atomic curates from the providers' own pages.
    models_dev: str | None = None
    from_models_dev: bool = False
    # The catalog's model entries with their sources; read only for `provenance`.
    raw_models: tuple[dict[str, Any], ...] = field(default_factory=tuple, repr=False)

    @cached_property
    def models(self) -> tuple[dict[str, Any], ...]:
        """The model definitions, without their sources (a model is built from these alone)."""
        return tuple(_without_provenance(m) for m in self.raw_models)

    @cached_property
    def provenance(self) -> dict[str, ModelProvenance]:
        # Built on first use: only the docs' tests and `builtin_model_provenance` read it, and
        # building it for every model cost start-up time for nothing.
        return {m["id"]: _provenance(m) for m in self.raw_models}


# Written by `atomic --refresh-models` (atomic/core/models/refresh.py): the long-tail providers built
# from the current models.dev data, used instead of the shipped ones from then on.
REFRESHED_CATALOG_FILE = "models-dev-catalog.json"


@lru_cache(maxsize=1)
def _shipped_catalog() -> dict[str, Any]:
    text = resources.files("atomic.core.models").joinpath("catalog.json").read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("providers"), dict):
        raise RuntimeError("atomic/core/models/catalog.json is malformed: no providers object")
    return data


def shipped_providers() -> dict[str, Any]:
    """The providers of the catalog.json shipped with Atomic, as raw JSON (a copy)."""
    return copy.deepcopy(_shipped_catalog()["providers"])


def reload_catalog() -> None:
    """Forget the built catalog (after `--refresh-models` wrote a new one)."""
    _merged_providers.cache_clear()
    _built_providers.cache_clear()


def _refreshed_providers(folder: str) -> dict[str, Any]:
    try:
        data = json.loads((Path(folder) / REFRESHED_CATALOG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    providers = data.get("providers") if isinstance(data, dict) else None
    return providers if isinstance(providers, dict) else {}


@lru_cache(maxsize=4)
def _merged_providers(folder: str) -> dict[str, Any]:
    # Only providers the shipped catalog takes from models.dev are replaced; Atomic's own stay.
    shipped = _shipped_catalog()["providers"]
    refreshed = _refreshed_providers(folder)
    return {
        name: refreshed[name] if "modelsDev" in spec and isinstance(refreshed.get(name), dict) else spec
        for name, spec in shipped.items()
    }


def builtin_providers() -> dict[str, BuiltinProvider]:
    """Built-in providers in catalog order (that order is also the preference order)."""
    return _built_providers(str(agent_dir()))


@lru_cache(maxsize=4)
def _built_providers(folder: str) -> dict[str, BuiltinProvider]:
    providers: dict[str, BuiltinProvider] = {}
    for name, spec in _merged_providers(folder).items():
        providers[name] = BuiltinProvider(
            name=name,
            display_name=spec.get("name", name),
            api=spec["api"],
            base_url=spec["baseUrl"],
            env_var=spec.get("envVar"),
            key_env_vars=tuple(v for v in spec.get("envVars", ()) if v != spec.get("envVar")),
            keyless=bool(spec.get("keyless", False)),
            opt_in_env=tuple(spec.get("optInEnv", ())),
            default_model=spec.get("defaultModel"),
            compat=spec.get("compat"),
            raw_models=tuple(spec.get("models", ())),
            auth=spec.get("auth") or ("none" if spec.get("keyless") else "api-key"),
            env_vars=_env_vars(spec),
            models_dev=spec.get("modelsDev"),
            from_models_dev="modelsDev" in spec,
        )
    return providers


def _env_vars(spec: dict[str, Any]) -> tuple[str, ...]:
    names = [spec["envVar"]] if spec.get("envVar") else []
    names += [v for v in spec.get("envVars", ()) if isinstance(v, str)]
    names += _BASE_URL_VARIABLE.findall(spec.get("baseUrl", ""))
    return tuple(dict.fromkeys(names))


# `{CLOUDFLARE_ACCOUNT_ID}` in a base URL is filled from the environment when the models are built.
_BASE_URL_VARIABLE = re.compile(r"\{([A-Z][A-Z0-9_]*)\}")


def names_unset_variable(url: str) -> bool:
    """Whether a `{VARIABLE}` part of the base URL is still unfilled (lower-case parts such as
    Bedrock's `{region}` are filled by the provider itself)."""
    return _BASE_URL_VARIABLE.search(url) is not None


def expand_base_url(url: str) -> str:
    """The base URL with `{VARIABLE}` parts taken from the environment (left as they are when unset,
    so the request fails naming what is missing)."""
    return _BASE_URL_VARIABLE.sub(lambda m: os.environ.get(m.group(1), "").strip() or m.group(0), url)


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
    if spec is None:
        return []
    # One pass over the raw entries: copy and leave the sources out.
    return [
        {key: _copy_json(value) for key, value in model.items() if key not in _PROVENANCE_KEYS}
        for model in spec.raw_models
    ]


def _copy_json(value: Any) -> Any:
    # copy.deepcopy's memo bookkeeping made copying the catalog's ~550 models the largest cost of
    # building the registry; JSON data has no cycles or shared parts to keep.
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def builtin_model_provenance(provider: str, model_id: str) -> ModelProvenance | None:
    spec = builtin_providers().get(provider)
    return spec.provenance.get(model_id) if spec else None


def env_var_for(provider: str) -> str | None:
    spec = builtin_providers().get(provider)
    return spec.env_var if spec else None
