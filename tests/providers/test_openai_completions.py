"""OpenAICompletionsProvider (plain HTTP, no SDK) against a scripted SSE server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from atomic.core.messages import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.providers.base import (
    Done,
    ProviderError,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolSpec,
    UsageUpdate,
)
from atomic.core.providers.openai_completions import OpenAICompletionsProvider
from tests.providers.conftest import cancel_after_first_text, collect, make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> tuple[None, dict]:
    data: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "m",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    data.update(extra)
    return (None, data)


def usage_chunk(prompt: int, completion: int, cached: int = 0) -> tuple[None, dict]:
    return chunk(
        usage={
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
    )


DONE = (None, "[DONE]")


def text_reply(text: str = "Hi") -> Reply:
    return Reply(
        events=[
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": text}),
            chunk({}, finish="stop"),
            usage_chunk(10, 2),
            DONE,
        ]
    )


def completions_model(url: str, **overrides: Any) -> Any:
    return make_model(f"{url}/v1", api="openai-completions", **overrides)


async def test_text_usage_and_request_shape(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(
            events=[
                chunk({"role": "assistant", "content": ""}),
                chunk({"content": "Hel"}),
                chunk({"content": "lo"}),
                chunk({}, finish="stop"),
                usage_chunk(1200, 30, cached=1000),
                DONE,
            ]
        )
    )
    model = completions_model(server.url)
    tools = [ToolSpec("bash", "Run a command", {"type": "object", "properties": {}})]
    events = await collect(OpenAICompletionsProvider(), make_request(model, tools=tools))

    assert [type(e) for e in events] == [TextStart, TextDelta, TextDelta, UsageUpdate, TextEnd, Done]
    assert "".join(e.delta for e in events if isinstance(e, TextDelta)) == "Hello"
    usage = events[3].usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (200, 30, 1000, 1230)
    assert events[-1] == Done(stop_reason="stop", response_id="chatcmpl-1")

    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test-secret-key"
    body = sent.body
    assert body["messages"][0] == {"role": "system", "content": "You are terse."}
    assert body["messages"][1] == {"role": "user", "content": "hi"}
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_completion_tokens"] == 32000
    assert "max_tokens" not in body
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "bash",
                "description": "Run a command",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    assert "reasoning_effort" not in body  # not a reasoning model


async def test_compat_switches(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    compat = {
        "supportsDeveloperRole": True,
        "maxTokensField": "max_tokens",
        "supportsUsageInStreaming": False,
    }
    model = completions_model(server.url, compat=compat, max_tokens=4096)
    await collect(OpenAICompletionsProvider(), make_request(model))
    body = server.requests[0].body
    assert body["messages"][0]["role"] == "developer"
    assert body["max_tokens"] == 4096
    assert "max_completion_tokens" not in body
    assert "stream_options" not in body


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_deltas_become_thinking(server: ScriptedServer, field: str) -> None:
    server.replies.append(
        Reply(
            events=[
                chunk({"role": "assistant", field: "Think"}),
                chunk({field: "ing"}),
                chunk({"content": "Done."}),
                chunk({}, finish="stop"),
                DONE,
            ]
        )
    )
    model = completions_model(server.url, reasoning=True)
    events = await collect(OpenAICompletionsProvider(), make_request(model, thinking_level="high"))
    kinds = [type(e) for e in events]
    assert kinds == [
        ThinkingStart,
        ThinkingDelta,
        ThinkingDelta,
        ThinkingEnd,
        TextStart,
        TextDelta,
        TextEnd,
        Done,
    ]
    assert events[1].delta + events[2].delta == "Thinking"
    assert server.requests[0].body["reasoning_effort"] == "high"


async def test_tool_calls_streamed_over_chunks(server: ScriptedServer) -> None:
    def call(index: int, **fields: Any) -> dict[str, Any]:
        return {"tool_calls": [{"index": index, **fields}]}

    server.replies.append(
        Reply(
            events=[
                chunk({"role": "assistant", "content": "Running."}),
                chunk(call(0, id="call_1", type="function", function={"name": "bash", "arguments": ""})),
                chunk(call(0, function={"arguments": '{"comm'})),
                chunk(call(0, function={"arguments": 'and": "ls"}'})),
                chunk(
                    call(
                        1,
                        id="call_2",
                        type="function",
                        function={"name": "read", "arguments": '{"path":"x"}'},
                    )
                ),
                chunk({}, finish="tool_calls"),
                usage_chunk(50, 20),
                DONE,
            ]
        )
    )
    events = await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.id, s.name) for s in starts] == [("call_1", "bash"), ("call_2", "read")]
    first_args = "".join(e.delta for e in events if isinstance(e, ToolCallDelta) and e.key == starts[0].key)
    assert json.loads(first_args) == {"command": "ls"}
    # The text block is closed before the first tool call starts.
    assert events.index(TextEnd(events[0].key)) < events.index(starts[0])
    assert [e.key for e in events if isinstance(e, ToolCallEnd)] == [s.key for s in starts]
    assert events[-1].stop_reason == "toolUse"


async def test_history_conversion(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    history = [
        UserMessage(content=[TextContent(text="see"), ImageContent(data="AAAA", mime_type="image/png")]),
        AssistantMessage(
            api="openai-completions",
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="hidden"),
                TextContent(text="Reading."),
                ToolCall(id="call_1", name="read", arguments={"path": "a"}),
                ToolCall(id="call_2", name="read", arguments={"path": "b"}),
            ],
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="read", content=[TextContent(text="A")]),
        AssistantMessage(stop_reason="error", content=[]),
        UserMessage(content="go on"),
    ]
    model = completions_model(server.url, input=["text", "image"])
    await collect(OpenAICompletionsProvider(), make_request(model, history))
    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert messages[1]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,AAAA"},
    }
    assistant = messages[2]
    assert assistant["content"] == "Reading."  # thinking dropped
    assert assistant["tool_calls"][0] == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path": "a"}'},
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": "A"}
    assert messages[4] == {"role": "tool", "tool_call_id": "call_2", "content": "Tool call was aborted"}


@pytest.mark.parametrize(
    ("compat", "level", "expected", "absent"),
    [
        ({}, "medium", {"reasoning_effort": "medium"}, []),
        ({}, "off", {}, ["reasoning_effort"]),
        ({"supportsReasoningEffort": False}, "high", {}, ["reasoning_effort"]),
        ({"thinkingFormat": "openrouter"}, "low", {"reasoning": {"effort": "low"}}, ["reasoning_effort"]),
        ({"thinkingFormat": "openrouter"}, "off", {"reasoning": {"effort": "none"}}, []),
        ({"thinkingFormat": "qwen"}, "high", {"enable_thinking": True}, ["reasoning_effort"]),
        ({"thinkingFormat": "zai"}, "off", {"thinking": {"type": "disabled"}}, ["enable_thinking"]),
        (
            {"thinkingFormat": "deepseek"},
            "high",
            {"thinking": {"type": "enabled"}, "reasoning_effort": "high"},
            [],
        ),
        ({"thinkingFormat": "deepseek"}, "off", {"thinking": {"type": "disabled"}}, ["reasoning_effort"]),
    ],
)
async def test_thinking_level_request_parameters(
    server: ScriptedServer, compat: dict[str, Any], level: str, expected: dict[str, Any], absent: list[str]
) -> None:
    server.replies.append(text_reply())
    model = completions_model(server.url, reasoning=True, compat=compat)
    await collect(OpenAICompletionsProvider(), make_request(model, thinking_level=level))
    body = server.requests[0].body
    assert {k: body.get(k) for k in expected} == expected
    for key in absent:
        assert key not in body


async def test_thinking_level_map_string_overrides_effort(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    model = completions_model(server.url, reasoning=True, thinking_level_map={"off": "none", "xhigh": "max"})
    await collect(OpenAICompletionsProvider(), make_request(model, thinking_level="off"))
    assert server.requests[0].body["reasoning_effort"] == "none"


async def test_429_is_transient_with_retry_after_ms_and_not_retried(server: ScriptedServer) -> None:
    body = {
        "error": {
            "message": "Rate limit reached for requests",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    server.replies.append(
        Reply(status=429, body=body, headers={"retry-after-ms": "1500", "retry-after": "2"})
    )
    server.replies.append(text_reply())
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert caught.value.kind == "transient"
    assert caught.value.status == 429
    assert caught.value.retry_after_s == 1.5
    assert "Rate limit reached" in caught.value.message
    assert len(server.requests) == 1


async def test_400_context_length_is_overflow(server: ScriptedServer) -> None:
    body = {
        "error": {
            "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        }
    }
    server.replies.append(Reply(status=400, body=body))
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert caught.value.kind == "overflow"


async def test_401_is_auth(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(status=401, body={"error": {"message": "Incorrect API key provided: sk-test-secret-key"}})
    )
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert caught.value.kind == "auth"
    assert "sk-test-secret-key" not in caught.value.message


async def test_connection_dropped_mid_stream_is_transient(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.drop_after = 2
    server.replies.append(reply)
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert caught.value.kind == "transient"


async def test_stream_without_finish_reason_is_transient(server: ScriptedServer) -> None:
    server.replies.append(Reply(events=[chunk({"content": "partial"}), DONE]))
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert caught.value.kind == "transient"
    assert "stream ended without a finish" in caught.value.message


async def test_cancellation_mid_stream_closes_the_response(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.stall_after = 2
    server.replies.append(reply)
    assert await cancel_after_first_text(OpenAICompletionsProvider(), make_request(completions_model(server.url)), server)


async def test_usage_update_is_emitted_before_done(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    events = await collect(OpenAICompletionsProvider(), make_request(completions_model(server.url)))
    assert isinstance(events[-1], Done)
    assert any(isinstance(e, UsageUpdate) and e.usage.output == 2 for e in events)
