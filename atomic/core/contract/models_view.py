"""`engine.models`: the model, the thinking level and the provider logins, over `ModelSelection`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from atomic.core.engine.model_selection import ModelSelection
from atomic.core.model_types import Model

if TYPE_CHECKING:
    from atomic.core.oauth.base import LoginPrompts
    from atomic.core.records import LogoutResult, ModelCycle, ProviderAuth, ThinkingLevelChange


class ModelsView:
    """Which model answers, how hard it thinks, and which providers have a key."""

    def __init__(self, models: ModelSelection) -> None:
        self._m = models

    @property
    def model(self) -> Model | None:
        return self._m.model

    @property
    def thinking_level(self) -> str:
        return self._m.thinking_level

    def all_models(self) -> list[Model]:
        """Every known model, with or without a key."""
        return self._m.all_models()

    def available_models(self) -> list[Model]:
        """The models that have a key."""
        return self._m.available_models()

    def has_auth(self, model: Model) -> bool:
        """True when a key for `model` is configured (or it needs none)."""
        return self._m.has_auth(model)

    def set_model(self, provider: str, model_id: str, persist: bool = False) -> Model:
        """Switch model (`persist` saves it as the default). Raises ValueError: unknown model, or no key."""
        return self._m.set_model(provider, model_id, persist)

    def cycle_model(self, persist: bool = False, backwards: bool = False) -> ModelCycle | None:
        """Switch to the next model of the scope (or of the models with a key); None when there is
        nothing else to switch to."""
        return self._m.cycle_model(persist, backwards)

    def supported_levels(self) -> list[str]:
        """The thinking levels the current model accepts ("off" first)."""
        return self._m.supported_levels()

    def set_thinking_level(self, level: str, persist: bool = False) -> ThinkingLevelChange:
        """Set the level, clamped to the model's (`persist` saves it for this model). Raises ValueError
        when `level` is not a thinking level at all."""
        return self._m.set_thinking_level(level, persist)

    def cycle_thinking_level(self) -> str | None:
        """Step to the model's next level. Returns the new level; None without a reasoning model."""
        return self._m.cycle_thinking_level()

    def warm_up_provider(self) -> None:
        """Start loading the current model's provider modules and HTTP stack in a background thread."""
        self._m.warm_up_provider()

    def no_model_guide(self) -> str:
        """What to tell a user who has no usable model (how to add a key)."""
        return self._m.no_model_guide()

    # -------------------------------------------------------------- providers and keys

    def providers(self) -> list[ProviderAuth]:
        """Every provider with where its key comes from (the login screen), in catalog order."""
        return self._m.providers()

    def provider_auth(self, provider: str) -> ProviderAuth:
        return self._m.registry.provider_auth(provider)

    def login_provider(self, provider: str, api_key: str) -> None:
        """Store `api_key` for `provider` in auth.json; its models become available."""
        self._m.login_provider(provider, api_key)

    async def login_with_subscription(self, provider: str, prompts: LoginPrompts) -> None:
        """Run the subscription login of `provider` (GitHub Copilot, ChatGPT), talking to the person
        through `prompts`, and store its tokens. Raises LoginError (LoginCancelled when the person
        stopped); cancelling the call stops the login."""
        await self._m.login_with_subscription(provider, prompts)

    def logout_provider(self, provider: str) -> LogoutResult:
        """Remove the stored key of `provider`: what still provides a key, and the models usable now."""
        return self._m.logout_provider(provider)
