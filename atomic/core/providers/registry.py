"""api name -> Provider. Built-in providers load on first use so start-up never imports an SDK."""

from __future__ import annotations

from collections.abc import Callable

from atomic.core.providers.base import Provider, ProviderError


def _anthropic() -> Provider:
    from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider

    return AnthropicMessagesProvider()


def _openai_completions() -> Provider:
    from atomic.core.providers.openai_completions import OpenAICompletionsProvider

    return OpenAICompletionsProvider()


def _openai_responses() -> Provider:
    from atomic.core.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider()


_BUILTIN_FACTORIES: dict[str, Callable[[], Provider]] = {
    "anthropic-messages": _anthropic,
    "openai-completions": _openai_completions,
    "openai-responses": _openai_responses,
}

# Each built-in provider module has a `warm_up()` that loads what its first request needs (its SDK,
# a connection pool); it runs in a warm-up thread, never on the event loop (see clients.py).
def _warm_anthropic() -> None:
    from atomic.core.providers import anthropic_messages

    anthropic_messages.warm_up()


def _warm_openai_completions() -> None:
    from atomic.core.providers import openai_completions

    openai_completions.warm_up()


def _warm_openai_responses() -> None:
    from atomic.core.providers import openai_responses

    openai_responses.warm_up()


def warm_turn_models() -> None:
    """Build the validators of the message and event models now, in the warm-up thread.

    They are built on first use (so start-up does not pay for them), and the first prompt used ten
    of them on the event loop: ~100 ms before its first delta, the SDK long since warm.
    """
    from pydantic import BaseModel

    from atomic.core import events, messages

    for module in (messages, events):
        for value in list(vars(module).values()):
            if (
                isinstance(value, type)
                and issubclass(value, BaseModel)
                and value.__module__ == module.__name__
                and not value.__pydantic_complete__
            ):
                value.model_rebuild()


def _with_turn_models(warm: Callable[[], None]) -> Callable[[], None]:
    def warm_all() -> None:
        warm()
        warm_turn_models()

    return warm_all


_WARMERS: dict[str, Callable[[], None]] = {
    "anthropic-messages": _with_turn_models(_warm_anthropic),
    "openai-completions": _with_turn_models(_warm_openai_completions),
    "openai-responses": _with_turn_models(_warm_openai_responses),
}

_registered: dict[str, Provider] = {}


def register_provider(api: str, provider: Provider) -> None:
    """Install (or replace) the provider for an api name, e.g. the engine's "scripted" one."""
    _registered[api] = provider


def unregister_provider(api: str) -> None:
    """Remove a registered provider; built-in apis fall back to their default implementation."""
    _registered.pop(api, None)


def known_apis() -> list[str]:
    return sorted(set(_BUILTIN_FACTORIES) | set(_registered))


def get_provider(api: str) -> Provider:
    """The provider for `api`; unknown apis raise a fatal ProviderError."""
    provider = _registered.get(api)
    if provider is not None:
        return provider
    factory = _BUILTIN_FACTORIES.get(api)
    if factory is None:
        raise ProviderError(f'Unknown API "{api}". Known APIs: {", ".join(known_apis())}.', kind="fatal")
    provider = factory()
    _registered[api] = provider
    return provider


def start_provider_warmup(api: str) -> None:
    """Load a built-in provider's SDK in a daemon thread (no-op for other apis or when started)."""
    warm = _WARMERS.get(api)
    if warm is not None and api not in _registered:
        from atomic.core.providers.clients import start_warmup

        start_warmup(api, warm)


async def ensure_provider_ready(api: str) -> None:
    """Wait, off the event loop, until the provider for `api` can be used without a heavy import."""
    warm = _WARMERS.get(api)
    if warm is None or api in _registered:
        return
    from atomic.core.providers.clients import start_warmup, wait_warmup

    await wait_warmup(start_warmup(api, warm))
