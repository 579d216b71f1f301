"""Compat switches follow from the provider and base URL; models.json models merge over built-ins."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.model_types import Model
from atomic.core.models.compat import completions_compat
from atomic.core.models.registry import ModelRegistry
from atomic.core.providers.base import StreamRequest
from atomic.core.providers.openai_completions import convert_messages


def _model(**fields: Any) -> Model:
    return Model(**{"id": "m", "api": "openai-completions", "provider": "custom", "base_url": "http://x/v1", **fields})


def test_inference_by_provider_name_and_by_base_url() -> None:
    by_name = completions_compat(_model(provider="deepseek", base_url="https://proxy.example/v1"))
    by_url = completions_compat(_model(provider="my-ds", base_url="https://api.deepseek.com/v1"))
    for compat in (by_name, by_url):
        assert compat["requiresReasoningContentOnAssistantMessages"] is True
        assert compat["thinkingFormat"] == "deepseek"
        assert compat["maxTokensField"] == "max_tokens"
    assert completions_compat(_model(base_url="https://api.z.ai/api/paas/v4"))["thinkingFormat"] == "zai"
    assert completions_compat(_model(provider="openrouter"))["thinkingFormat"] == "openrouter"
    assert completions_compat(_model(provider="groq"))["replayReasoning"] is False
    assert completions_compat(_model(base_url="https://api.x.ai/v1"))["supportsReasoningEffort"] is False
    local = completions_compat(_model(base_url="http://localhost:8080/v1"))
    assert local.get("replayReasoning", True) is True and "thinkingFormat" not in local


def test_explicit_compat_wins_key_by_key() -> None:
    compat = completions_compat(
        _model(provider="deepseek", compat={"requiresReasoningContentOnAssistantMessages": False, "extra": 1})
    )
    assert compat["requiresReasoningContentOnAssistantMessages"] is False
    assert compat["thinkingFormat"] == "deepseek" and compat["extra"] == 1


def _deepseek_history() -> list[Any]:
    turn = AssistantMessage(
        api="openai-completions", provider="deepseek", model="deepseek-reasoner", stop_reason="toolUse",
        content=[ThinkingContent(thinking="Look it up.", thinking_signature="reasoning_content"),
                 ToolCall(id="call_1", name="weather", arguments={"city": "Rome"})],
    )
    result = ToolResultMessage(tool_call_id="call_1", tool_name="weather", content=[TextContent(text="20 C")])
    return [UserMessage(content="weather?"), turn, result]


def test_models_json_redefining_the_provider_keeps_deepseek_rules(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    # The user points DeepSeek at a proxy and lists the reasoner without any compat or reasoning flag.
    write_models_json({"providers": {"deepseek": {
        "baseUrl": "https://llm-proxy.internal/v1",
        "models": [{"id": "deepseek-reasoner", "contextWindow": 64000}],
    }}})
    registry = make_registry()
    assert registry.errors == []
    model = registry.find("deepseek", "deepseek-reasoner")
    assert model is not None
    assert model.base_url == "https://llm-proxy.internal/v1" and model.context_window == 64000
    assert model.reasoning is True  # merged over the built-in entry, not replacing it
    assert (model.compat or {}).get("requiresReasoningContentOnAssistantMessages") is True
    messages = convert_messages(StreamRequest(model=model, system_prompt="", messages=_deepseek_history()))
    assert messages[1]["reasoning_content"] == "Look it up."


def test_custom_provider_on_a_deepseek_url_infers_the_rule(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"ds": {
        "baseUrl": "https://api.deepseek.com", "api": "openai-completions", "apiKey": "k",
        "models": [{"id": "deepseek-reasoner", "reasoning": True}],
    }}})
    model = make_registry().find("ds", "deepseek-reasoner")
    assert model is not None and model.compat is None
    history = _deepseek_history()
    history[1] = history[1].model_copy(update={"provider": "ds"})
    messages = convert_messages(StreamRequest(model=model, system_prompt="", messages=history))
    assert messages[1]["reasoning_content"] == "Look it up."
    # Another model's turn gets the field too, empty: DeepSeek rejects the message without it.
    foreign = history[1].model_copy(update={"model": "other", "provider": "anthropic", "api": "anthropic-messages"})
    messages = convert_messages(StreamRequest(model=model, system_prompt="", messages=[history[0], foreign, history[2]]))
    assert messages[1]["reasoning_content"] == ""


def test_models_json_merge_keeps_nested_builtin_fields(
    write_models_json: Callable[[Any], Path], make_registry: Callable[..., ModelRegistry]
) -> None:
    write_models_json({"providers": {"openai": {"models": [{"id": "gpt-5", "cost": {"input": 9}}]}}})
    registry = make_registry()
    model = registry.find("openai", "gpt-5")
    assert model is not None and model.cost.input == 9
    assert model.cost.output > 0 and model.reasoning is True
    assert model.thinking_level_map == {"off": None}
