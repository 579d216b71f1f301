"""Compat switches for OpenAI-compatible servers: what the provider and base URL imply, under explicit settings.

Servers that speak Chat Completions differ in small ways (see docs/models.md for every key).
Many of those differences follow from who the server is, so they are inferred from the model's
provider name and base URL, the way pi does it. Whatever the catalog or models.json sets
explicitly (`model.compat`) wins over the inference, key by key. Inference happens when a
request is built, so a models.json provider that points a custom name at, say, a DeepSeek URL
gets DeepSeek's rules without listing them.
"""

from __future__ import annotations

from typing import Any

from atomic.core.model_types import Model


def _is(model: Model, providers: tuple[str, ...], hosts: tuple[str, ...]) -> bool:
    url = model.base_url.lower()
    return model.provider in providers or any(host in url for host in hosts)


def inferred_completions_compat(model: Model) -> dict[str, Any]:
    """Compat values implied by the provider name and base URL (only keys that differ from the defaults)."""
    deepseek = _is(model, ("deepseek",), ("deepseek.com",))
    zai = _is(model, ("zai",), ("api.z.ai", "bigmodel.cn"))
    xai = _is(model, ("xai",), ("api.x.ai",))
    groq = _is(model, ("groq",), ("groq.com",))
    mistral = _is(model, ("mistral",), ("mistral.ai",))
    openrouter = _is(model, ("openrouter",), ("openrouter.ai",))
    openai = _is(model, ("openai",), ("api.openai.com",))
    huggingface = _is(model, ("huggingface",), ("huggingface.co",))
    azure = model.api == "azure-openai-completions" or _is(model, (), (".openai.azure.com", ".services.ai.azure.com"))

    compat: dict[str, Any] = {}
    if not openai:
        # Only OpenAI itself is known to take the `developer` role; `system` works everywhere.
        compat["supportsDeveloperRole"] = False
    if xai or zai:
        compat["supportsReasoningEffort"] = False
    if deepseek or mistral:
        compat["maxTokensField"] = "max_tokens"
    if mistral:
        compat["requiresToolResultName"] = True
        compat["requiresMistralToolIds"] = True
    if deepseek:
        # DeepSeek answers 400 when an assistant message of a thinking model lacks reasoning_content.
        compat["requiresReasoningContentOnAssistantMessages"] = True
        compat["thinkingFormat"] = "deepseek"
    elif zai:
        compat["thinkingFormat"] = "zai"
    elif openrouter:
        compat["thinkingFormat"] = "openrouter"
    if groq or mistral or openai or huggingface or azure:
        # These reject unknown assistant-message fields (`reasoning`, `reasoning_content`) with 400;
        # Hugging Face's router may hand the request to Groq.
        compat["replayReasoning"] = False
    return compat


def completions_compat(model: Model) -> dict[str, Any]:
    """The compat switches a Chat Completions request uses: inferred ones under the explicit ones."""
    return {**inferred_completions_compat(model), **(model.compat or {})}
