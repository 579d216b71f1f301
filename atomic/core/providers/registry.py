"""The APIs Atomic speaks, declared once: api name -> how to build its provider, how to warm it up,
which function turns a thinking level into its request parameters, and whether it needs an API key.

Built-in providers load on first use, so start-up imports none of them (and none imports an SDK).
The `Api` Literal (model_types.py) and models.json's KNOWN_APIS name the same apis;
tests/providers/test_api_table.py keeps the three in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.providers import thinking_params
from atomic.core.providers.base import Provider, ProviderError


@dataclass(frozen=True)
class ApiSpec:
    """One API: `create` builds its provider (importing its module only then)."""

    create: Callable[[], Provider]
    # Loads what the first request needs (its modules, a connection pool) in a warm-up thread, never on the
    # event loop (see warmup.py); None when there is nothing heavy to load.
    warm_up: Callable[[], None] | None
    # Thinking level -> request parameters (thinking_params.py); None when the api takes none.
    thinking_params: Callable[..., dict[str, Any]] | None
    # False for the offline scripted provider: no key, no auth headers, never saved as the default model.
    needs_api_key: bool = True


def _anthropic() -> Provider:
    from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider

    return AnthropicMessagesProvider()


def _openai_completions() -> Provider:
    from atomic.core.providers.openai_completions import OpenAICompletionsProvider

    return OpenAICompletionsProvider()


def _openai_responses() -> Provider:
    from atomic.core.providers.openai_responses import OpenAIResponsesProvider

    return OpenAIResponsesProvider()


def _google_generative() -> Provider:
    from atomic.core.providers.google_generative import GoogleGenerativeAIProvider

    return GoogleGenerativeAIProvider()


def _google_vertex() -> Provider:
    from atomic.core.providers.google_vertex import GoogleVertexProvider

    return GoogleVertexProvider()


def _bedrock() -> Provider:
    from atomic.core.providers.bedrock_converse import BedrockConverseProvider

    return BedrockConverseProvider()


def _warm_bedrock() -> None:
    from atomic.core.providers import bedrock_converse

    _warm_http("atomic.core.providers.bedrock_converse")()
    bedrock_converse.warm_up()


def _azure_responses() -> Provider:
    from atomic.core.providers.azure_openai import azure_responses_provider

    return azure_responses_provider()


def _azure_completions() -> Provider:
    from atomic.core.providers.azure_openai import azure_completions_provider

    return azure_completions_provider()
def _openai_codex_responses() -> Provider:
    from atomic.core.providers.openai_codex_responses import OpenAICodexResponsesProvider

    return OpenAICodexResponsesProvider()


def _scripted() -> Provider:
    from atomic.core.providers.scripted import ScriptedProvider

    return ScriptedProvider()


def warm_turn_models() -> None:
    """Build the validators of the message and event models now, in the warm-up thread.

    They are built on first use (so start-up does not pay for them), and the first prompt used ten
    of them on the event loop, before its first delta, long after the HTTP stack was warm.
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


def _warm_http(module: str) -> Callable[[], None]:
    """The warm-up of a built-in provider (each speaks HTTP itself, no SDK): its modules, the HTTP
    stack with a prebuilt pool (providers/http.py) and the turn models' validators."""

    def warm() -> None:
        import importlib

        from atomic.core.providers import http

        importlib.import_module(module)
        http.warm_up()
        warm_turn_models()

    return warm


APIS: dict[str, ApiSpec] = {
    "anthropic-messages": ApiSpec(
        _anthropic, _warm_http("atomic.core.providers.anthropic_messages"), thinking_params.anthropic_params),
    "openai-completions": ApiSpec(
        _openai_completions, _warm_http("atomic.core.providers.openai_completions"), thinking_params.completions_params),
    "openai-responses": ApiSpec(
        _openai_responses, _warm_http("atomic.core.providers.openai_responses"), thinking_params.responses_params),
    "google-generative-ai": ApiSpec(
        _google_generative, _warm_http("atomic.core.providers.google_generative"), thinking_params.google_params),
    # Gemini's thinking parameters; Claude models on Vertex take Anthropic's (google_vertex.py builds them).
    "google-vertex": ApiSpec(
        _google_vertex, _warm_http("atomic.core.providers.google_vertex"), thinking_params.google_params),
    # Claude models on Bedrock take Anthropic's thinking parameters (bedrock_request.py builds them).
    "bedrock-converse-stream": ApiSpec(_bedrock, _warm_bedrock, thinking_params.anthropic_params),
    "azure-openai-responses": ApiSpec(
        _azure_responses, _warm_http("atomic.core.providers.azure_openai"), thinking_params.responses_params),
    "azure-openai-completions": ApiSpec(
        _azure_completions, _warm_http("atomic.core.providers.azure_openai"), thinking_params.completions_params),
    "openai-codex-responses": ApiSpec(
        _openai_codex_responses, _warm_http("atomic.core.providers.openai_codex_responses"),
        thinking_params.responses_params),
    # Tests, snapshots and demos: a session gives it its own script (SessionOptions.scripted or a script file).
    "scripted": ApiSpec(_scripted, None, None, needs_api_key=False),
}


def needs_api_key(api: str) -> bool:
    """False for apis that run without a key (the scripted one); unknown apis count as needing one."""
    spec = APIS.get(api)
    return spec is None or spec.needs_api_key


_registered: dict[str, Provider] = {}


def register_provider(api: str, provider: Provider) -> None:
    """Install (or replace) the provider for an api name (tests; an api outside the table)."""
    _registered[api] = provider


def unregister_provider(api: str) -> None:
    """Remove a registered provider; apis in the table fall back to their default implementation."""
    _registered.pop(api, None)


def known_apis() -> list[str]:
    return sorted(set(APIS) | set(_registered))


def get_provider(api: str) -> Provider:
    """The provider for `api`; unknown apis raise a fatal ProviderError."""
    provider = _registered.get(api)
    if provider is not None:
        return provider
    spec = APIS.get(api)
    if spec is None:
        raise ProviderError(f'Unknown API "{api}". Known APIs: {", ".join(known_apis())}.', kind="fatal")
    provider = spec.create()
    _registered[api] = provider
    return provider


def start_provider_warmup(api: str, *, https: bool = False) -> None:
    """Warm a built-in provider up in a daemon thread (no-op for other apis or when started);
    `https`: its pool will talk TLS, so its CA bundle is read there too (providers/http_stack.py)."""
    spec = APIS.get(api)
    warm = spec.warm_up if spec is not None else None
    if warm is not None and api not in _registered:
        from atomic.core.providers.warmup import start_warmup

        start_warmup(api, _with_trust(warm) if https else warm)


def _with_trust(warm: Callable[[], None]) -> Callable[[], None]:
    def warm_and_trust() -> None:
        from atomic.core.providers.http_stack import preload_trust

        warm()
        preload_trust()

    return warm_and_trust


async def ensure_provider_ready(api: str) -> None:
    """Wait, off the event loop, until the provider for `api` can be used without a heavy import."""
    spec = APIS.get(api)
    warm = spec.warm_up if spec is not None else None
    if warm is None or api in _registered:
        return
    from atomic.core.providers.warmup import start_warmup, wait_warmup

    await wait_warmup(start_warmup(api, warm))
