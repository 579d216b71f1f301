"""AnthropicMessagesProvider (plain HTTP, no SDK) against a scripted SSE server."""

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
from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider
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
from tests.providers.conftest import cancel_after_first_text, collect, make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer


def ev(data: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return (data["type"], data)


def message_start(usage: dict[str, int] | None = None) -> tuple[str, dict[str, Any]]:
    return ev(
        {
            "type": "message_start",
            "message": {
                "id": "msg_01",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "test-model",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": usage or {"input_tokens": 10, "output_tokens": 1},
            },
        }
    )


def block_start(index: int, block: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return ev({"type": "content_block_start", "index": index, "content_block": block})


def block_delta(index: int, delta: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return ev({"type": "content_block_delta", "index": index, "delta": delta})


def block_stop(index: int) -> tuple[str, dict[str, Any]]:
    return ev({"type": "content_block_stop", "index": index})


def message_end(stop_reason: str, output_tokens: int = 5) -> list[tuple[str, dict[str, Any]]]:
    return [
        ev(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            }
        ),
        ev({"type": "message_stop"}),
    ]


def text_reply(text: str = "Hello") -> Reply:
    return Reply(
        events=[
            message_start(),
            block_start(0, {"type": "text", "text": ""}),
            block_delta(0, {"type": "text_delta", "text": text}),
            block_stop(0),
            *message_end("end_turn"),
        ]
    )


async def test_text_stream_and_request_shape(server: ScriptedServer) -> None:
    server.replies.append(text_reply("Hello there"))
    model = make_model(server.url)
    tools = [ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})]
    request = make_request(model, tools=tools, headers={"x-extra": "1"})
    events = await collect(AnthropicMessagesProvider(), request)

    assert [type(e) for e in events] == [UsageUpdate, TextStart, TextDelta, TextEnd, UsageUpdate, Done]
    assert events[2].delta == "Hello there"
    # Anthropic has no explicit end-of-turn field: stop_reason "end_turn" is not one.
    assert events[-1] == Done(stop_reason="stop", response_id="msg_01", end_turn=None)

    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-test-secret-key"
    assert sent.headers["x-extra"] == "1"
    body = sent.body
    assert body["stream"] is True
    assert body["model"] == "test-model"
    assert body["system"] == [
        {"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}
    ]
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["tools"][0]["input_schema"]["properties"]["path"] == {"type": "string"}
    assert body["max_tokens"] == 32000  # min(model.max_tokens, 32000)
    assert "thinking" not in body  # non-reasoning model


async def test_thinking_with_signature_and_usage(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(
            events=[
                message_start(
                    {
                        "input_tokens": 100,
                        "output_tokens": 1,
                        "cache_read_input_tokens": 2000,
                        "cache_creation_input_tokens": 300,
                    }
                ),
                ("ping", {"type": "ping"}),
                block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
                block_delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
                block_delta(0, {"type": "thinking_delta", "thinking": "think."}),
                block_delta(0, {"type": "signature_delta", "signature": "EqQBCgIY"}),
                block_stop(0),
                block_start(1, {"type": "redacted_thinking", "data": "opaque=="}),
                block_stop(1),
                block_start(2, {"type": "text", "text": ""}),
                block_delta(2, {"type": "text_delta", "text": "Answer"}),
                block_stop(2),
                *message_end("max_tokens", output_tokens=50),
            ]
        )
    )
    model = make_model(server.url, id="claude-sonnet-4-5", reasoning=True)
    events = await collect(AnthropicMessagesProvider(), make_request(model, thinking_level="medium"))

    thinking = [e for e in events if isinstance(e, (ThinkingStart, ThinkingDelta, ThinkingEnd))]
    assert thinking == [
        ThinkingStart("0"),
        ThinkingDelta("0", "Let me "),
        ThinkingDelta("0", "think."),
        ThinkingEnd("0", signature="EqQBCgIY", redacted=False),
        ThinkingStart("1"),
        ThinkingEnd("1", signature="opaque==", redacted=True),
    ]
    usages = [e.usage for e in events if isinstance(e, UsageUpdate)]
    assert (usages[0].input, usages[0].output, usages[0].cache_read, usages[0].cache_write) == (
        100,
        1,
        2000,
        300,
    )
    final = usages[-1]
    assert (final.input, final.output, final.cache_read, final.cache_write) == (100, 50, 2000, 300)
    assert final.total_tokens == 2450
    assert events[-1].stop_reason == "length"
    assert events[-1].end_turn is None


async def test_tool_call_arguments_streamed_in_chunks(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(
            events=[
                message_start(),
                block_start(0, {"type": "tool_use", "id": "toolu_01", "name": "read", "input": {}}),
                block_delta(0, {"type": "input_json_delta", "partial_json": ""}),
                block_delta(0, {"type": "input_json_delta", "partial_json": '{"pa'}),
                block_delta(0, {"type": "input_json_delta", "partial_json": 'th": "a.py"}'}),
                block_stop(0),
                *message_end("tool_use"),
            ]
        )
    )
    events = await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert events[1] == ToolCallStart("0", id="toolu_01", name="read")
    deltas = [e.delta for e in events if isinstance(e, ToolCallDelta)]
    assert deltas == ['{"pa', 'th": "a.py"}']
    assert json.loads("".join(deltas)) == {"path": "a.py"}
    assert ToolCallEnd("0") in events
    assert events[-1].stop_reason == "toolUse"


async def test_history_conversion_replays_signed_thinking_and_merges_results(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    model = make_model(server.url, id="claude-sonnet-4-5", reasoning=True)
    history = [
        UserMessage(content=[TextContent(text="look"), ImageContent(data="iVBOR", mime_type="image/png")]),
        AssistantMessage(
            api="anthropic-messages",
            provider="test",
            model="claude-sonnet-4-5",
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="signed", thinking_signature="sig1"),
                ThinkingContent(thinking="unsigned"),
                TextContent(text="Reading."),
                ToolCall(id="call_a|fc_1", name="read", arguments={"path": "a"}),
                ToolCall(id="toolu_b", name="read", arguments={"path": "b"}),
            ],
        ),
        ToolResultMessage(tool_call_id="call_a|fc_1", tool_name="read", content=[TextContent(text="A")]),
        # toolu_b never got a result (aborted): a synthetic error result must be sent.
        AssistantMessage(stop_reason="aborted", content=[]),
        UserMessage(content="next"),
    ]
    await collect(AnthropicMessagesProvider(), make_request(model, history, thinking_level="low"))
    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "user"]
    assert messages[0]["content"][1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
    }
    assistant = messages[1]["content"]
    assert assistant[0] == {"type": "thinking", "thinking": "signed", "signature": "sig1"}
    assert [b["type"] for b in assistant] == ["thinking", "text", "tool_use", "tool_use"]
    assert assistant[2]["id"] == "call_a_fc_1"  # sanitised for Anthropic's id pattern
    results = messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["call_a_fc_1", "toolu_b"]
    assert results[0]["is_error"] is False
    assert results[1]["is_error"] is True
    assert results[1]["content"] == [{"type": "text", "text": "Tool call was aborted"}]
    # Only the last user message carries the cache breakpoint.
    assert messages[3]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in results[-1]


@pytest.mark.parametrize(
    ("model_id", "level", "expected"),
    [
        ("claude-sonnet-4-5", "off", {"max_tokens": 32000, "thinking": {"type": "disabled"}}),
        (
            "claude-sonnet-4-5",
            "minimal",
            {"max_tokens": 33024, "thinking": {"type": "enabled", "budget_tokens": 1024}},
        ),
        (
            "claude-sonnet-4-5",
            "high",
            {"max_tokens": 48384, "thinking": {"type": "enabled", "budget_tokens": 16384}},
        ),
        (
            "claude-opus-4-6",
            "medium",
            {
                "max_tokens": 32000,
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": "medium"},
            },
        ),
        (
            "claude-opus-4-7",
            "minimal",
            {
                "max_tokens": 32000,
                "thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": "low"},
            },
        ),
    ],
)
async def test_thinking_level_request_parameters(
    server: ScriptedServer, model_id: str, level: str, expected: dict[str, Any]
) -> None:
    server.replies.append(text_reply())
    model = make_model(server.url, id=model_id, reasoning=True)
    await collect(AnthropicMessagesProvider(), make_request(model, thinking_level=level))
    body = server.requests[0].body
    assert {k: body[k] for k in expected} == expected
    if "output_config" not in expected:
        assert "output_config" not in body


async def test_529_is_transient_with_retry_after_and_not_retried(server: ScriptedServer) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.replies.append(Reply(status=529, body=body, headers={"retry-after": "7"}))
    server.replies.append(text_reply())  # would be consumed by a retry
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    error = caught.value
    assert error.kind == "transient"
    assert error.status == 529
    assert error.retry_after_s == 7.0
    assert error.message.startswith("529 ")
    assert "overloaded_error" in error.message and "Overloaded" in error.message
    assert len(server.requests) == 1


async def test_400_prompt_too_long_is_overflow(server: ScriptedServer) -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    server.replies.append(Reply(status=400, body=body))
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert caught.value.kind == "overflow"
    assert caught.value.status == 400


async def test_401_is_auth_and_never_leaks_the_key(server: ScriptedServer) -> None:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key sk-test-secret-key"},
    }
    server.replies.append(Reply(status=401, body=body))
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert caught.value.kind == "auth"
    assert "sk-test-secret-key" not in caught.value.message
    assert "authentication_error" in caught.value.message


async def test_error_event_mid_stream_is_classified(server: ScriptedServer) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.replies.append(Reply(events=[message_start(), ("error", error)]))
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert caught.value.kind == "transient"
    assert "overloaded_error" in caught.value.message


async def test_connection_dropped_mid_stream_is_transient(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.drop_after = 2
    server.replies.append(reply)
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert caught.value.kind == "transient"


async def test_stream_without_message_stop_is_transient(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.events = reply.events[:-1]  # no message_stop, but the body ends cleanly
    server.replies.append(reply)
    with pytest.raises(ProviderError) as caught:
        await collect(AnthropicMessagesProvider(), make_request(make_model(server.url)))
    assert caught.value.kind == "transient"
    assert "stream ended without a finish" in caught.value.message


async def test_cancellation_mid_stream_propagates_and_closes_the_response(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.stall_after = 3
    server.replies.append(reply)
    assert await cancel_after_first_text(AnthropicMessagesProvider(), make_request(make_model(server.url)), server)
