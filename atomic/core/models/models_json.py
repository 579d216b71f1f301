"""Parse and validate `<agentDir>/models.json` (JSON with comments and trailing commas).

Schema: `{"providers": {"<name>": {baseUrl?, api?, apiKey?, headers?, compat?, authHeader?,
models?: [ModelDef], modelOverrides?: {"<id>": partial ModelDef}}}}`.

Any validation error rejects the whole file (the registry then keeps only the built-ins), the
same as pi: a half-applied file would be harder to understand than an ignored one. Messages name
the provider and the field, and the wording of pi's messages is kept where pi has one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, get_args

from atomic.core import jsonc
from atomic.core.model_types import Api
from atomic.core.models.cloud_auth import is_cloud_api
from atomic.core.providers.base import THINKING_LEVELS

KNOWN_APIS: tuple[str, ...] = get_args(Api)
OVERRIDE_FIELDS = frozenset(
    {
        "name",
        "reasoning",
        "thinkingLevelMap",
        "input",
        "cost",
        "contextWindow",
        "maxTokens",
        "headers",
        "compat",
    }
)
MODEL_FIELDS = OVERRIDE_FIELDS | {"id", "api", "baseUrl"}
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite")


class ModelsJsonError(Exception):
    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass
class ProviderConfig:
    name: str
    base_url: str | None = None
    api: str | None = None
    # The configured value (literal, env name or !command): resolved only when a key is needed.
    api_key: str | None = field(default=None, repr=False)
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    auth_header: bool = False
    models: list[dict[str, Any]] = field(default_factory=list)
    model_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)


def parse_models_json(text: str, builtin_names: set[str]) -> dict[str, ProviderConfig]:
    """Provider configs in file order; raises ModelsJsonError listing every problem found."""
    try:
        data = jsonc.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ModelsJsonError([f"invalid JSON: {exc}"]) from None
    if not isinstance(data, dict):
        raise ModelsJsonError(['the file must contain a JSON object like {"providers": {...}}'])
    providers = data.get("providers", {})
    if not isinstance(providers, dict):
        raise ModelsJsonError(['"providers" must be an object mapping provider names to settings'])

    errors: list[str] = []
    configs: dict[str, ProviderConfig] = {}
    for name, raw in providers.items():
        config = _parse_provider(name, raw, name in builtin_names, errors)
        if config is not None:
            configs[name] = config
    if errors:
        raise ModelsJsonError(errors)
    return configs


def _parse_provider(name: str, raw: Any, is_builtin: bool, errors: list[str]) -> ProviderConfig | None:
    where = f"Provider {name}"
    if not name.strip():
        errors.append("Provider names must not be empty.")
        return None
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be an object.")
        return None
    start = len(errors)
    config = ProviderConfig(name=name)
    config.base_url = _optional_str(raw, "baseUrl", where, errors)
    config.api = _optional_api(raw, "api", where, errors)
    config.api_key = _optional_str(raw, "apiKey", where, errors)
    config.headers = _optional_str_map(raw, "headers", where, errors)
    config.compat = _optional_object(raw, "compat", where, errors)
    auth_header = raw.get("authHeader", False)
    if not isinstance(auth_header, bool):
        errors.append(f'{where}: "authHeader" must be true or false.')
    config.auth_header = auth_header is True

    models = raw.get("models", [])
    if not isinstance(models, list):
        errors.append(f'{where}: "models" must be an array.')
        models = []
    overrides = raw.get("modelOverrides", {})
    if not isinstance(overrides, dict):
        errors.append(f'{where}: "modelOverrides" must be an object keyed by model id.')
        overrides = {}

    has_anything = any(raw.get(k) for k in ("baseUrl", "headers", "compat", "modelOverrides", "models"))
    # A key alone is a useful setting for a built-in provider, so accept it there.
    if not has_anything and not (is_builtin and raw.get("apiKey")):
        errors.append(f'{where}: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".')

    if models and not is_builtin:
        if not config.base_url and not all(isinstance(m, dict) and m.get("baseUrl") for m in models):
            errors.append(f'{where}: "baseUrl" is required when defining custom models.')
        # Bedrock and Vertex AI sign in with the cloud's own credential chain; a key is optional there.
        if not config.api_key and not is_cloud_api(config.api or ""):
            errors.append(f'{where}: "apiKey" is required when defining custom models.')

    for index, model_raw in enumerate(models):
        model = _parse_model(name, index, model_raw, errors)
        if model is None:
            continue
        if not model.get("api") and not config.api and not is_builtin:
            errors.append(
                f'{where}, model {model["id"]}: no "api" specified. Set at provider or model level.'
            )
        config.models.append(model)

    for model_id, override_raw in overrides.items():
        override_where = f"{where}, model override {model_id}"
        if not isinstance(override_raw, dict):
            errors.append(f"{override_where}: must be an object.")
            continue
        config.model_overrides[model_id] = _parse_fields(
            override_raw, OVERRIDE_FIELDS, override_where, errors
        )

    return config if len(errors) == start else None


def _parse_model(provider: str, index: int, raw: Any, errors: list[str]) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        errors.append(f"Provider {provider}, model #{index + 1}: must be an object.")
        return None
    model_id = raw.get("id")
    if not isinstance(model_id, str) or not model_id.strip():
        errors.append(f'Provider {provider}, model #{index + 1}: "id" is required (a non-empty string).')
        return None
    where = f"Provider {provider}, model {model_id}"
    parsed = _parse_fields(raw, MODEL_FIELDS - {"id"}, where, errors)
    parsed["id"] = model_id
    return parsed


def _parse_fields(
    raw: dict[str, Any], allowed: frozenset[str], where: str, errors: list[str]
) -> dict[str, Any]:
    """Validate the known fields present in `raw`; unknown fields are ignored (as pi does)."""
    out: dict[str, Any] = {}
    for key in allowed:
        if key not in raw:
            continue
        value = raw[key]
        if key in ("name", "baseUrl"):
            if not isinstance(value, str):
                errors.append(f'{where}: "{key}" must be a string.')
                continue
        elif key == "api":
            if value not in KNOWN_APIS:
                errors.append(f'{where}: unknown api "{value}". Use one of: {", ".join(KNOWN_APIS)}.')
                continue
        elif key == "reasoning":
            if not isinstance(value, bool):
                errors.append(f'{where}: "reasoning" must be true or false.')
                continue
        elif key in ("contextWindow", "maxTokens"):
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or value <= 0
                or value != int(value)
            ):
                errors.append(f"{where}: invalid {key}")
                continue
            value = int(value)
        elif key == "input":
            if not isinstance(value, list) or not value or any(v not in ("text", "image") for v in value):
                errors.append(f'{where}: "input" must be ["text"] or ["text", "image"].')
                continue
        elif key == "cost":
            value = _parse_cost(value, where, errors)
            if value is None:
                continue
        elif key == "thinkingLevelMap":
            value = _parse_level_map(value, where, errors)
            if value is None:
                continue
        elif key == "headers":
            if not _is_str_map(value):
                errors.append(f'{where}: "headers" must be an object of string values.')
                continue
        elif key == "compat":
            if not isinstance(value, dict):
                errors.append(f'{where}: "compat" must be an object.')
                continue
        out[key] = value
    return out


def _parse_cost(value: Any, where: str, errors: list[str]) -> dict[str, float] | None:
    if not isinstance(value, dict):
        errors.append(f'{where}: "cost" must be an object with input, output, cacheRead, cacheWrite.')
        return None
    cost: dict[str, float] = {}
    for name in COST_FIELDS:
        if name not in value:
            continue
        price = value[name]
        if (
            isinstance(price, bool)
            or not isinstance(price, int | float)
            or price < 0
            or not math.isfinite(price)
        ):
            errors.append(
                f"{where}: invalid cost.{name} (a number of dollars per million tokens, 0 or more)."
            )
            return None
        cost[name] = float(price)
    return cost


def _parse_level_map(value: Any, where: str, errors: list[str]) -> dict[str, str | None] | None:
    if not isinstance(value, dict):
        errors.append(f'{where}: "thinkingLevelMap" must be an object.')
        return None
    for level, mapped in value.items():
        if level not in THINKING_LEVELS:
            errors.append(
                f'{where}: thinkingLevelMap has unknown level "{level}". Use: {", ".join(THINKING_LEVELS)}.'
            )
            return None
        if mapped is not None and not isinstance(mapped, str):
            errors.append(f"{where}: thinkingLevelMap.{level} must be a string or null.")
            return None
    return dict(value)


def _optional_str(raw: dict[str, Any], key: str, where: str, errors: list[str]) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        errors.append(f'{where}: "{key}" must be a string.')
        return None
    return value


def _optional_api(raw: dict[str, Any], key: str, where: str, errors: list[str]) -> str | None:
    value = raw.get(key)
    if value is None:
        return None
    if value not in KNOWN_APIS:
        errors.append(f'{where}: unknown api "{value}". Use one of: {", ".join(KNOWN_APIS)}.')
        return None
    return str(value)


def _optional_object(raw: dict[str, Any], key: str, where: str, errors: list[str]) -> dict[str, Any] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        errors.append(f'{where}: "{key}" must be an object.')
        return None
    return value


def _optional_str_map(raw: dict[str, Any], key: str, where: str, errors: list[str]) -> dict[str, str] | None:
    value = raw.get(key)
    if value is None:
        return None
    if not _is_str_map(value):
        errors.append(f'{where}: "{key}" must be an object of string values.')
        return None
    return dict(value)


def _is_str_map(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
