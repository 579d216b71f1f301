"""All models Atomic knows about: the built-in catalog plus `<agentDir>/models.json`.

Credential resolution order for a provider (the same as pi): the runtime `--api-key` (only for
the provider it was given for), then auth.json, then the provider's environment variable, then
the models.json `apiKey`. Values may be literals, environment variable names or `!command`.

Keys are resolved only when asked for (`api_key_for`), never stored on a Model, and never
appear in a repr, str or error message.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.auth import AuthStorage, resolve_value
from atomic.core.model_types import Model
from atomic.core.models.catalog import (
    BuiltinProvider,
    builtin_model_defs,
    builtin_providers,
    expand_base_url,
    names_unset_variable,
)
from atomic.core.models.cloud_auth import cloud_credential_label, is_cloud_api
from atomic.core.models.models_json import ModelsJsonError, ProviderConfig, parse_models_json

if TYPE_CHECKING:
    from atomic.core.records import AuthStatus, ProviderAuth

MODELS_FILE_NAME = "models.json"
# Sent as the bearer token to a keyless local server (Ollama ignores it, but the OpenAI SDK
# refuses to run without some key).
LOCAL_PLACEHOLDER_KEY = "ollama"


# Fields merged key by key when a models.json model redefines a built-in one; others are replaced.
_NESTED_FIELDS = ("cost", "headers", "compat")


def merge_model_def(builtin: dict[str, Any], custom: dict[str, Any]) -> dict[str, Any]:
    merged = {**builtin, **custom}
    for key in _NESTED_FIELDS:
        if isinstance(builtin.get(key), dict) and isinstance(custom.get(key), dict):
            merged[key] = {**builtin[key], **custom[key]}
    return merged


class ModelRegistry:
    def __init__(
        self,
        agent_dir: Path,
        auth: AuthStorage,
        runtime_api_key: tuple[str, str] | None = None,
    ) -> None:
        self.agent_dir = Path(agent_dir)
        self.auth = auth
        self.models_json_path = self.agent_dir / MODELS_FILE_NAME
        self._runtime_api_key = runtime_api_key
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self._configs: dict[str, ProviderConfig] = {}
        self._built: dict[str, list[Model]] = {}
        self.reload()

    def __repr__(self) -> str:
        return (
            f"ModelRegistry(models={len(self._models)}, providers={len(self.providers())}, "
            f"errors={len(self.errors)})"
        )

    __str__ = __repr__

    # ------------------------------------------------------------------ loading

    def reload(self) -> None:
        """Re-read models.json (and auth.json); an invalid models.json leaves only the built-ins."""
        self.auth.reload()
        self.errors = []
        self.warnings = []
        self._configs = self._load_models_json()
        # Each provider's models are built when first asked for: start-up needs the configured
        # providers' only, and the catalog has hundreds of models. A provider with modelOverrides is
        # built now so that an override matching no model is reported by reload.
        self._built = {}
        for name, config in self._configs.items():
            if config.model_overrides:
                self._provider_models(name)

    def _provider_models(self, name: str) -> list[Model]:
        built = self._built.get(name)
        if built is None:
            spec = builtin_providers().get(name)
            config = self._configs.get(name)
            if spec is not None:
                built = self._builtin_provider_models(spec, config)
            elif config is not None:
                built = self._custom_provider_models(config)
            else:
                built = []
            self._built[name] = built
        return built

    @property
    def _models(self) -> list[Model]:
        return [model for name in self.providers() for model in self._provider_models(name)]

    def _load_models_json(self) -> dict[str, ProviderConfig]:
        try:
            text = self.models_json_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self.errors.append(f"Cannot read {self.models_json_path}: {exc.strerror or exc}")
            return {}
        try:
            return parse_models_json(text, set(builtin_providers()))
        except ModelsJsonError as exc:
            self.errors.extend(f"models.json: {message}" for message in exc.messages)
            return {}

    def _builtin_provider_models(self, spec: BuiltinProvider, config: ProviderConfig | None) -> list[Model]:
        base_url = self._builtin_base_url(spec, config)
        defs = self._login_model_defs(spec.name) or builtin_model_defs(spec.name)
        if config:
            by_id = {d["id"]: i for i, d in enumerate(defs)}
            for custom in config.models:
                if custom["id"] in by_id:
                    # Merged over the built-in entry: a models.json line that only changes the context
                    # window keeps the catalog's reasoning flag, level map, prices and compat.
                    index = by_id[custom["id"]]
                    defs[index] = merge_model_def(defs[index], custom)
                else:
                    defs.append(custom)
        models = [self._build_model(spec.name, raw, spec.api, base_url, spec.compat, config) for raw in defs]
        return self._apply_overrides(spec.name, models, config)

    def _custom_provider_models(self, config: ProviderConfig) -> list[Model]:
        models = [
            self._build_model(config.name, raw, config.api or "", config.base_url or "", None, config)
            for raw in config.models
        ]
        return self._apply_overrides(config.name, models, config)

    def _builtin_base_url(self, spec: BuiltinProvider, config: ProviderConfig | None) -> str:
        return (
            (config.base_url if config else None)
            or self._env_base_url(spec)
            or self._login_base_url(spec.name)
            or expand_base_url(spec.base_url)
        )

    def provider_base_url(self, provider: str) -> str:
        """Where the provider's requests go (models.json, environment, login, catalog, in that order)."""
        spec = builtin_providers().get(provider)
        config = self._configs.get(provider)
        if spec is not None:
            return self._builtin_base_url(spec, config)
        return (config.base_url if config else None) or ""

    def provider_api(self, provider: str) -> str:
        spec = builtin_providers().get(provider)
        config = self._configs.get(provider)
        return (config.api if config else None) or (spec.api if spec else "")

    def _login_base_url(self, provider: str) -> str | None:
        # A subscription login knows its API host (Copilot's token names it).
        entry = self.auth.oauth(provider)
        value = entry.get("baseUrl") if entry else None
        return value if isinstance(value, str) and value else None

    def _login_model_defs(self, provider: str) -> list[dict[str, Any]]:
        """The models a login listed (Copilot's `/models`), over the catalog's figures for the same ids."""
        entry = self.auth.oauth(provider)
        listed = entry.get("models") if entry else None
        if not isinstance(listed, list) or not listed:
            return []
        catalog = {d["id"]: d for d in builtin_model_defs(provider)}
        return [
            merge_model_def(catalog.get(item["id"], {}), item)
            for item in listed
            if isinstance(item, dict) and isinstance(item.get("id"), str)
        ]

    @staticmethod
    def _env_base_url(spec: BuiltinProvider) -> str | None:
        # OLLAMA_HOST is Ollama's own variable: "host:port" or a URL, without the /v1 suffix.
        if spec.name != "ollama":
            return None
        host = os.environ.get("OLLAMA_HOST", "").strip()
        if not host:
            return None
        if "://" not in host:
            host = f"http://{host}"
        host = host.rstrip("/")
        return host if host.endswith("/v1") else f"{host}/v1"

    @staticmethod
    def _build_model(
        provider: str,
        raw: dict[str, Any],
        default_api: str,
        default_base_url: str,
        builtin_compat: dict[str, Any] | None,
        config: ProviderConfig | None,
    ) -> Model:
        # Precedence, lowest first: built-in provider, models.json provider, the model itself.
        compat = {
            **(builtin_compat or {}),
            **((config.compat if config else None) or {}),
            **(raw.get("compat") or {}),
        }
        headers = {**((config.headers if config else None) or {}), **(raw.get("headers") or {})}
        data: dict[str, Any] = {
            "id": raw["id"],
            "name": raw.get("name") or raw["id"],
            "api": raw.get("api") or (config.api if config else None) or default_api,
            "provider": provider,
            "baseUrl": raw.get("baseUrl") or default_base_url,
            "reasoning": raw.get("reasoning", False),
            "input": list(raw.get("input") or ["text"]),
            "contextWindow": raw.get("contextWindow", 128000),
            "maxTokens": raw.get("maxTokens", 16384),
            "cost": raw.get("cost") or {},
            "headers": headers or None,
            "compat": compat or None,
            "thinkingLevelMap": raw.get("thinkingLevelMap"),
        }
        return Model.model_validate(data)

    def _apply_overrides(
        self, provider: str, models: list[Model], config: ProviderConfig | None
    ) -> list[Model]:
        if not config or not config.model_overrides:
            return models
        by_id = {m.id: i for i, m in enumerate(models)}
        for model_id, override in config.model_overrides.items():
            index = by_id.get(model_id)
            if index is None:
                self.warnings.append(
                    f'models.json: Provider {provider}: modelOverrides "{model_id}" matches no model.'
                )
                continue
            current = models[index].to_wire()
            # Headers are kept off the wire (they may hold secrets), so carry them over explicitly.
            current["headers"] = models[index].headers
            for key, value in override.items():
                if key in ("cost", "headers", "compat"):
                    current[key] = {**(current.get(key) or {}), **value}
                else:
                    current[key] = value
            models[index] = Model.model_validate(current)
        return models

    # ------------------------------------------------------------------ queries

    def all_models(self) -> list[Model]:
        return list(self._models)

    def provider_models(self, provider: str) -> list[Model]:
        """One provider's models (by its canonical name), without building the other providers'."""
        return list(self._provider_models(provider))

    def available_models(self) -> list[Model]:
        """Models whose provider has a credential (or is a local server the user opted into)."""
        return [m for name in self.providers() if self.is_configured(name) for m in self._provider_models(name)]

    def find(self, provider: str, model_id: str) -> Model | None:
        name = self.canonical_provider(provider) or provider
        models = self._provider_models(name)
        for model in models:
            if model.id == model_id:
                return model
        lowered = model_id.lower()
        for model in models:
            if model.id.lower() == lowered:
                return model
        return None

    def providers(self) -> list[str]:
        """Built-in providers in catalog order, then custom ones in models.json order."""
        names = list(builtin_providers())
        names.extend(n for n in self._configs if n not in builtin_providers())
        return names

    def canonical_provider(self, name: str) -> str | None:
        """The provider's real name for a case-insensitive spelling, or None if unknown."""
        lowered = name.strip().lower()
        for known in self.providers():
            if known.lower() == lowered:
                return known
        return None

    def auth_kind(self, provider: str) -> str:
        """How the provider is reached: "api-key", "oauth", "cloud" or "none" (the catalog says)."""
        spec = builtin_providers().get(provider)
        return spec.auth if spec else "api-key"

    def env_var_for(self, provider: str) -> str | None:
        spec = builtin_providers().get(provider)
        return spec.env_var if spec else None

    def key_env_names(self) -> set[str]:
        """Environment variables that hold a key or header models.json names (kept from the model's commands)."""
        names: set[str] = set()
        for config in self._configs.values():
            for value in (config.api_key, *(config.headers or {}).values()):
                text = (value or "").strip()
                if text and not text.startswith("!") and text in os.environ:
                    names.add(text)
        return names

    def default_model_id(self, provider: str) -> str | None:
        spec = builtin_providers().get(provider)
        return spec.default_model if spec else None

    # ------------------------------------------------------------------ credentials

    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """`--api-key` applies to the provider of the model the CLI resolved."""
        self._runtime_api_key = (provider, key)

    def _runtime_key_for(self, provider: str) -> str | None:
        if self._runtime_api_key and self._runtime_api_key[0].lower() == provider.lower():
            return self._runtime_api_key[1] or None
        return None

    def _credential_source(self, provider: str) -> tuple[str, str | None] | None:
        """(source, label) of the first credential that would be used, without resolving it."""
        if self._runtime_key_for(provider):
            return "runtime", None
        if self.auth.has_credential(provider):
            return "stored", None
        spec = builtin_providers().get(provider)
        if spec:
            for var in (spec.env_var, *spec.key_env_vars, *spec.opt_in_env):
                if var and os.environ.get(var, "").strip():
                    return "environment", var
        config = self._configs.get(provider)
        if config and config.api_key:
            return "models_json", None
        if config and spec and spec.keyless:
            return "models_json", None
        api = (config.api if config else None) or (spec.api if spec else None)
        if api and is_cloud_api(api):
            # Bedrock and Vertex AI authenticate with the cloud's own credential chain.
            label = cloud_credential_label(api)
            return ("environment", label) if label else None
        return None

    def is_configured(self, provider: str) -> bool:
        # A base URL still naming a variable (Cloudflare's `{CLOUDFLARE_ACCOUNT_ID}`) cannot be reached yet.
        if self._credential_source(provider) is None:
            return False
        spec = builtin_providers().get(provider)
        return spec is None or not names_unset_variable(self.provider_base_url(provider))

    def auth_status(self, provider: str) -> AuthStatus:
        """Whether a key for `provider` is configured, where it comes from and (an env var) its name."""
        from atomic.core.records import AuthStatus

        found = self._credential_source(provider)
        if found is None:
            return AuthStatus(configured=False)
        source, label = found
        return AuthStatus(configured=True, source=source, label=label or None)

    def provider_auth(self, provider: str) -> ProviderAuth:
        """One provider as the login screen lists it."""
        from atomic.core.records import ProviderAuth

        return ProviderAuth(
            provider=provider,
            status=self.auth_status(provider),
            env_var=self.env_var_for(provider),
            default_model_id=self.default_model_id(provider),
            auth=self.auth_kind(provider),
        )

    def api_key_for(self, provider: str) -> str | None:
        """The key to send, resolved now (`!command` runs here). None if nothing is configured."""
        runtime = self._runtime_key_for(provider)
        if runtime:
            return runtime
        stored = self.auth.api_key(provider)
        if stored:
            return stored
        login = self.auth.oauth(provider)
        if login is not None and isinstance(login.get("access"), str):
            return str(login["access"])
        spec = builtin_providers().get(provider)
        for var in (spec.env_var, *spec.key_env_vars) if spec else ():
            from_env = os.environ.get(var, "").strip() if var else ""
            if from_env:
                return from_env
        config = self._configs.get(provider)
        if config and config.api_key:
            resolved = resolve_value(config.api_key)
            if resolved:
                return resolved
        if spec and spec.keyless and self.is_configured(provider):
            return LOCAL_PLACEHOLDER_KEY
        return None

    def login_in_use(self, provider: str) -> bool:
        """True when the provider's requests go with its stored subscription login (nothing before it
        in the resolution order: no `--api-key`, no stored API key)."""
        return (
            not self._runtime_key_for(provider)
            and not self.auth.has_api_key(provider)
            and self.auth.has_oauth(provider)
        )

    def headers_for(self, model: Model) -> dict[str, str]:
        """Extra request headers with env/`!command` values resolved (unresolvable ones dropped)."""
        headers: dict[str, str] = {}
        for name, raw_value in (model.headers or {}).items():
            value = resolve_value(raw_value)
            if value is not None:
                headers[name] = value
        config = self._configs.get(model.provider)
        if config and config.auth_header:
            key = self.api_key_for(model.provider)
            if key:
                headers["Authorization"] = f"Bearer {key}"
        return headers
