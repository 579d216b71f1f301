"""Model selection: the model and thinking level, scoped models, cycling, persistence, login/logout.

It owns the model registry and the stored API keys; it records model and level changes in the
active session file (`active_store`) and reports them as events (`emit`) and extension hooks.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.core.engine.errors import PromptRejected
from atomic.core.events import Event, ModelChanged, ThinkingLevelChanged
from atomic.core.extensions.hooks import HookBus
from atomic.core.model_types import Model
from atomic.core.session.store import SessionStore
from atomic.core.settings import SettingsManager

if TYPE_CHECKING:
    from atomic.core.auth import AuthStorage
    from atomic.core.models.registry import ModelRegistry
    from atomic.core.providers.base import Provider
    from atomic.core.providers.scripted import ScriptedProvider
    from atomic.core.records import LogoutResult, ModelCycle, ProviderAuth, ThinkingLevelChange

SCRIPTED_PROVIDER = "scripted"
# Settings key holding per-model thinking levels: {"provider/model-id": "high"}.
MODEL_LEVELS_KEY = "modelThinkingLevels"

# The fixed first part lets clients match the message; what exactly is wrong follows it.
SAVED_DEFAULT_BLOCKED = "Configured default model is unavailable or unsupported"

ScopedModels = list[tuple[Model, str | None]]


def scripted_model(script_path: str | None = None) -> Model:
    return Model(
        id="scripted-model",
        name="Scripted (offline)",
        api="scripted",
        provider=SCRIPTED_PROVIDER,
        base_url=script_path or "",
        reasoning=True,
        input=["text", "image"],
        context_window=200000,
        max_tokens=16384,
        thinking_level_map={"xhigh": "xhigh", "max": "max"},
    )


def _needs_api_key(model: Model) -> bool:
    """The API table says which apis run without a key (the offline scripted one)."""
    from atomic.core.providers.registry import needs_api_key

    return needs_api_key(model.api)


class ModelSelection:
    def __init__(
        self,
        *,
        agent_dir: Path,
        settings: SettingsManager,
        active_store: Callable[[], SessionStore],
        emit: Callable[[Event], None],
        hooks: HookBus,
    ) -> None:
        self._settings = settings
        self._active_store = active_store
        self._emit = emit
        self._hooks = hooks
        from atomic.core.auth import AuthStorage
        from atomic.core.models.registry import ModelRegistry

        self.auth: AuthStorage = AuthStorage(agent_dir)
        self.registry: ModelRegistry = ModelRegistry(agent_dir, self.auth, None)
        self.model: Model | None = None
        self.thinking_level = "off"
        # Models (with an optional level) that cycling goes through: --models or enabledModels.
        self.scoped: ScopedModels = []
        self.extra_models: list[Model] = []
        self._scripted_providers: dict[str, ScriptedProvider] = {}
        # Set when the saved default model cannot be used: prompts are refused (never another model
        # silently) until set_model or cycle_model picks one.
        self.model_block: tuple[str, str] | None = None
        script = os.environ.get("ATOMIC_SCRIPT")
        if script:
            self.extra_models.append(scripted_model(script))

    # -------------------------------------------------------------- catalog

    def use_scripted(self, provider: ScriptedProvider) -> Model:
        model = scripted_model()
        self._scripted_providers[model.key] = provider
        self.extra_models = [m for m in self.extra_models if m.key != model.key] + [model]
        return model

    def add_extra_model(self, model: Model) -> None:
        if model not in self.extra_models:
            self.extra_models.append(model)

    def scripted_provider_for(self, model: Model) -> ScriptedProvider:
        from atomic.core.providers.scripted import ScriptedProvider

        provider = self._scripted_providers.get(model.key)
        if provider is None:
            base = model.base_url.removeprefix("file://")
            provider = ScriptedProvider.from_file(Path(base)) if base else ScriptedProvider()
            self._scripted_providers[model.key] = provider
        return provider

    async def provider_for(self, model: Model) -> Provider:
        """The provider that streams `model`'s answers (its modules loaded on first need)."""
        if model.api == "scripted":
            return self.scripted_provider_for(model)
        from atomic.core.providers.registry import ensure_provider_ready, get_provider

        # Importing the provider and its HTTP stack is slow: a warm-up thread does it, only this run waits.
        await ensure_provider_ready(model.api)
        return get_provider(model.api)

    def warm_up_provider(self) -> None:
        """Start loading the current model's provider modules and HTTP stack in the background
        (frontends call this once their first answer is out, so start-up itself stays light)."""
        if self.model is not None:
            from atomic.core.providers.registry import start_provider_warmup

            # A no-op for apis with nothing heavy to load (the scripted one).
            start_provider_warmup(self.model.api, https=self.model.base_url.startswith("https:"))

    def no_model_guide(self) -> str:
        """What to tell a user who has no usable model (how to add a key)."""
        from atomic.core.models import no_model_message

        return no_model_message(self.registry)

    def all_models(self) -> list[Model]:
        return [*self.registry.all_models(), *self.extra_models]

    def available_models(self) -> list[Model]:
        return [*self.registry.available_models(), *self.extra_models]

    def find_model(self, provider: str, model_id: str) -> Model | None:
        for model in self.extra_models:
            if model.provider == provider and model.id == model_id:
                return model
        return self.registry.find(provider, model_id)

    def api_key_for(self, model: Model) -> str | None:
        if not _needs_api_key(model):
            return None
        return self.registry.api_key_for(model.provider)

    def headers_for(self, model: Model) -> dict[str, str]:
        if not _needs_api_key(model):
            return {}
        return self.registry.headers_for(model)

    async def request_credentials(self, model: Model, messages: list[Any]) -> tuple[str | None, dict[str, str]]:
        """The key and headers for one request (a subscription login refreshed first when due)."""
        if not _needs_api_key(model):
            return None, {}
        from atomic.core.engine.login_credentials import request_credentials

        return await request_credentials(self.registry, model, messages)

    def has_auth(self, model: Model) -> bool:
        """Whether `model` is among the available ones, asking only its own provider (each prompt
        checks this, and building every configured provider's catalog would cost more than the check)."""
        if not _needs_api_key(model) or any(m.key == model.key for m in self.extra_models):
            return True
        registry = self.registry
        return registry.is_configured(model.provider) and any(
            m.key == model.key for m in registry.provider_models(model.provider)
        )

    # -------------------------------------------------------------- the saved default

    def saved_default_problem(self, provider: str, model_id: str) -> tuple[str, str] | None:
        """(reason, detail) when the saved default `provider/model_id` cannot be used, else None."""
        from atomic.core.providers import known_apis

        if self.registry.canonical_provider(provider) is None and not any(
            m.provider == provider for m in self.extra_models
        ):
            return "configured-provider-unsupported", f"provider {provider} is not known"
        model = self.find_model(provider, model_id)
        if model is None:
            return "configured-model-unsupported", f"{provider} has no model {model_id}"
        if model.api not in known_apis():
            return "configured-model-unsupported", f"its API {model.api} is not supported"
        if not self.has_auth(model):
            return "configured-model-unavailable", f"no API key for {provider}"
        return None

    def block_on_saved_default(self, provider: str | None, model_id: str | None) -> str | None:
        """At startup, when the model comes from settings: the warning to show (and prompts blocked)
        when the saved defaultProvider/defaultModel cannot be used, else None."""
        if not provider or not model_id:
            return None
        problem = self.saved_default_problem(provider, model_id)
        if problem is None:
            return None
        reason, detail = problem
        message = (
            f"{SAVED_DEFAULT_BLOCKED} ({provider}/{model_id}: {detail}). Update defaultProvider/defaultModel"
            " in settings.json or choose a model with /model (RPC: set_model or cycle_model)."
        )
        self.model_block = (reason, message)
        return message

    def ensure_can_prompt(self) -> None:
        """Raise PromptRejected when no usable model is selected."""
        if self.model_block is not None:
            raise PromptRejected(self.model_block[1])
        if self.model is None:
            raise PromptRejected(self.no_model_guide())
        if not self.has_auth(self.model):
            raise PromptRejected(
                f"No API key for {self.model.provider}/{self.model.id}. Set {self._env_hint(self.model.provider)}"
                " or run /login."
            )

    def _env_hint(self, provider: str) -> str:
        from atomic.core.models.catalog import env_var_for
        from atomic.core.models.cloud_auth import cloud_setup_hint

        cloud = cloud_setup_hint(self.model.api) if self.model is not None else None
        return cloud or env_var_for(provider) or f"an apiKey for {provider} in models.json"

    # -------------------------------------------------------------- starting

    def start_with(self, model: Model | None) -> None:
        """The factory's choice at startup: nothing is recorded or announced."""
        self.model = model

    def start_level(self, level: str) -> None:
        """The startup thinking level (clamped to the model): nothing is recorded or announced."""
        if self.model is not None:
            from atomic.core.models.thinking import clamp_level

            self.thinking_level = clamp_level(self.model, level)

    def set_scoped(self, scoped: ScopedModels) -> None:
        self.scoped = scoped

    def clear_block(self) -> None:
        self.model_block = None

    def restore(self, provider: str | None, model_id: str | None, thinking_level: str | None) -> None:
        """Apply the model and level recorded on a branch just loaded (without recording them again)."""
        if provider and model_id:
            model = self.find_model(provider, model_id)
            if model is not None and self.has_auth(model):
                self._apply_model(model, record=False)
        if thinking_level and self.model is not None:
            from atomic.core.models.thinking import clamp_level

            level = clamp_level(self.model, thinking_level)
            if level != self.thinking_level:
                self.thinking_level = level
                self._emit(ThinkingLevelChanged(level=level))

    def record_current(self) -> None:
        """Write the current model and level into the active session (a new file starts with them)."""
        if self.model is not None:
            store = self._active_store()
            store.append("model_change", provider=self.model.provider, modelId=self.model.id)
            store.append("thinking_level_change", thinkingLevel=self.thinking_level)

    # -------------------------------------------------------------- selection

    def supported_levels(self) -> list[str]:
        from atomic.core.models.thinking import supported_levels

        return supported_levels(self.model) if self.model else ["off"]

    def _apply_model(self, model: Model, *, record: bool = True) -> None:
        from atomic.core.models.thinking import clamp_level

        previous = self.model
        self.model = model
        if record:
            self._active_store().append("model_change", provider=model.provider, modelId=model.id)
        wanted = self.thinking_level
        if previous is not None and not previous.reasoning and model.reasoning:
            wanted = self._settings.settings.default_thinking_level or "medium"
        # A level saved for this very model (set_thinking_level with persist) wins.
        saved = self.saved_level_for(model)
        if saved is not None:
            wanted = saved
        level = clamp_level(model, wanted)
        if level != self.thinking_level:
            self.thinking_level = level
            if record:
                self._active_store().append("thinking_level_change", thinkingLevel=level)
            self._emit(ThinkingLevelChanged(level=level))
        self._emit(ModelChanged(model=model.to_wire()))
        if previous is not None and self._hooks.has("model_select"):
            self._hooks.emit_nowait("model_select", {"model": model, "previousModel": previous, "source": "set"})

    def set_model(self, provider: str, model_id: str, persist: bool = False) -> Model:
        model = self.find_model(provider, model_id)
        if model is None:
            raise ValueError(f"Model not found: {provider}/{model_id}")
        if not self.has_auth(model):
            raise ValueError(f"No API key for {provider}/{model_id}")
        self._apply_model(model)
        self.model_block = None
        if persist:
            self._persist_model()
        return model

    def _persist_model(self) -> None:
        if self.model is None or not _needs_api_key(self.model):
            return
        self._settings.update(
            {
                "defaultProvider": self.model.provider,
                "defaultModel": self.model.id,
                "defaultThinkingLevel": self.thinking_level,
            }
        )

    def cycle_model(self, persist: bool = False, backwards: bool = False) -> ModelCycle | None:
        from atomic.core.records import ModelCycle

        scoped = [(m, lvl) for m, lvl in self.scoped if self.has_auth(m)]
        candidates = scoped or [(m, None) for m in self.available_models()]
        if len(candidates) < 2:
            return None
        keys = [m.key for m, _ in candidates]
        current = self.model.key if self.model else None
        index = keys.index(current) if current in keys else -1
        step = -1 if backwards else 1
        model, level = candidates[(index + step) % len(candidates)]
        if model.key != current:
            self.model_block = None
        self._apply_model(model)
        if level:
            self.set_thinking_level(level)
        if persist:
            self._persist_model()
        return ModelCycle(model=model, thinking_level=self.thinking_level, is_scoped=bool(scoped))

    def saved_level_for(self, model: Model) -> str | None:
        levels = self._settings.raw().get(MODEL_LEVELS_KEY)
        if isinstance(levels, dict) and isinstance(levels.get(model.key), str):
            return str(levels[model.key])
        return None

    def set_thinking_level(self, level: str, persist: bool = False) -> ThinkingLevelChange:
        from atomic.core.models.thinking import clamp_level
        from atomic.core.providers.base import THINKING_LEVELS
        from atomic.core.records import ThinkingLevelChange

        if level not in THINKING_LEVELS:
            raise ValueError(f"Invalid thinking level: {level}. Use one of: {', '.join(THINKING_LEVELS)}")
        effective = clamp_level(self.model, level) if self.model else level
        if effective != self.thinking_level:
            previous = self.thinking_level
            self.thinking_level = effective
            self._active_store().append("thinking_level_change", thinkingLevel=effective)
            self._emit(ThinkingLevelChanged(level=effective))
            if self._hooks.has("thinking_level_select"):
                self._hooks.emit_nowait("thinking_level_select", {"level": effective, "previousLevel": previous})
        if persist:
            changes: dict[str, Any] = {"defaultThinkingLevel": effective}
            if self.model is not None:
                levels = dict(self._settings.raw().get(MODEL_LEVELS_KEY) or {})
                levels[self.model.key] = effective
                changes[MODEL_LEVELS_KEY] = levels
            self._settings.update(changes)
        model = self.model
        return ThinkingLevelChange(
            level=effective, provider=model.provider if model else None, model_id=model.id if model else None
        )

    def cycle_thinking_level(self) -> str | None:
        from atomic.core.models.thinking import next_level

        if self.model is None:
            return None
        level = next_level(self.model, self.thinking_level)
        if level is None:
            return None
        self.set_thinking_level(level)
        return self.thinking_level

    # -------------------------------------------------------------- auth

    def login_provider(self, provider: str, api_key: str) -> None:
        self.auth.set_api_key(provider, api_key)
        self.registry.reload()

    async def login_with_subscription(self, provider: str, prompts: Any) -> None:
        """Run a subscription login (atomic/core/oauth) and store its tokens; its models become available."""
        from atomic.core.oauth import run_login

        await run_login(self.auth, provider, prompts)
        self.registry.reload()

    def logout_provider(self, provider: str) -> LogoutResult:
        """Remove the stored key of `provider`; the result says what still provides one and the
        models usable now."""
        from atomic.core.records import LogoutResult

        self.auth.remove(provider)
        self.registry.reload()
        scoped = tuple(m for m, _ in self.scoped if self.has_auth(m)) if self.scoped else None
        return LogoutResult(
            provider=provider,
            status=self.registry.auth_status(provider),
            models=tuple(self.available_models()),
            scoped_models=scoped,
        )

    def providers(self) -> list[ProviderAuth]:
        """Every provider with where its key comes from (the login screen), in catalog order."""
        return [self.registry.provider_auth(name) for name in self.registry.providers()]
