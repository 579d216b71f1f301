"""Provider registry and the shared history clean-up."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from atomic.core.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from atomic.core.providers import get_provider, register_provider, unregister_provider
from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider
from atomic.core.providers.base import Done, ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.history import normalize_history, safe_tool_id
from atomic.core.providers.openai_completions import OpenAICompletionsProvider
from atomic.core.providers.openai_responses import OpenAIResponsesProvider
from atomic.core.providers.scripted import ScriptedProvider


def test_builtin_providers() -> None:
    assert isinstance(get_provider("anthropic-messages"), AnthropicMessagesProvider)
    assert isinstance(get_provider("openai-completions"), OpenAICompletionsProvider)
    assert isinstance(get_provider("openai-responses"), OpenAIResponsesProvider)


def test_unknown_api_is_fatal() -> None:
    with pytest.raises(ProviderError) as caught:
        get_provider("carrier-pigeon")
    assert caught.value.kind == "fatal"
    assert "carrier-pigeon" in caught.value.message
    assert "anthropic-messages" in caught.value.message


def test_register_scripted_provider() -> None:
    class Scripted:
        async def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
            yield Done(stop_reason="stop")

    scripted = Scripted()
    register_provider("scripted", scripted)
    try:
        assert get_provider("scripted") is scripted
    finally:
        unregister_provider("scripted")
    # Back to the table's own scripted provider.
    assert isinstance(get_provider("scripted"), ScriptedProvider)
    unregister_provider("scripted")
    register_provider("pigeon-post", scripted)
    try:
        assert get_provider("pigeon-post") is scripted
    finally:
        unregister_provider("pigeon-post")
    with pytest.raises(ProviderError):
        get_provider("pigeon-post")


def test_importing_providers_does_not_import_sdks() -> None:
    import subprocess
    import sys

    code = "import sys, atomic.core.providers; print('anthropic' in sys.modules, 'openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


def test_normalize_history_repairs_tool_calls() -> None:
    call_a = ToolCall(id="a", name="read", arguments={})
    call_b = ToolCall(id="b", name="bash", arguments={})
    steering = UserMessage(content="also check b")
    result_a = ToolResultMessage(tool_call_id="a", tool_name="read", content=[TextContent(text="A")])
    orphan = ToolResultMessage(tool_call_id="zzz", tool_name="read")
    messages = [
        UserMessage(content="go"),
        AssistantMessage(stop_reason="toolUse", content=[call_a, call_b]),
        steering,  # a user message that landed before the result
        result_a,
        orphan,
        AssistantMessage(stop_reason="error", content=[]),
        AssistantMessage(stop_reason="aborted", content=[]),
    ]
    cleaned = normalize_history(messages)
    assert [type(m).__name__ for m in cleaned] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "UserMessage",
    ]
    assert cleaned[2] is result_a
    synthetic = cleaned[3]
    assert synthetic.tool_call_id == "b" and synthetic.is_error
    assert synthetic.content[0].text == "Tool call was aborted"
    assert cleaned[4] is steering


def test_safe_tool_id() -> None:
    assert safe_tool_id("call_1|fc_2") == "call_1_fc_2"
    assert safe_tool_id("x" * 100) == "x" * 64
    assert safe_tool_id("") == "tool_call"
