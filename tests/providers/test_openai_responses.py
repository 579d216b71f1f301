"""OpenAIResponsesProvider (plain HTTP, no SDK) against a scripted SSE server."""

from __future__ import annotations

import json
from typing import Any

import pytest

from atomic.core.messages import (
    AssistantMessage,
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
from atomic.core.providers.openai_responses import OpenAIResponsesProvider
from tests.providers.conftest import cancel_after_first_text, collect, make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer

_sequence = iter(range(1, 1_000_000))


def ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return (kind, {"type": kind, "sequence_number": next(_sequence), **fields})


def response(status: str = "completed", usage: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1700000000,
        "model": "gpt-test",
        "status": status,
        "output": [],
        "usage": usage,
        **extra,
    }


def created() -> tuple[str, dict[str, Any]]:
    return ev("response.created", response=response("in_progress"))


def completed(usage: dict[str, Any] | None = None, **extra: Any) -> tuple[str, dict[str, Any]]:
    usage = usage or {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 3,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 13,
    }
    return ev("response.completed", response=response("completed", usage, **extra))


def message_events(index: int, item_id: str, text_chunks: list[str]) -> list[tuple[str, dict[str, Any]]]:
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}
    events = [
        ev("response.output_item.added", output_index=index, item=item),
        ev(
            "response.content_part.added",
            item_id=item_id,
            output_index=index,
            content_index=0,
            part={"type": "output_text", "text": "", "annotations": []},
        ),
    ]
    for chunk in text_chunks:
        events.append(
            ev(
                "response.output_text.delta",
                item_id=item_id,
                output_index=index,
                content_index=0,
                delta=chunk,
                logprobs=[],
            )
        )
    text = "".join(text_chunks)
    done_item = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    events.append(ev("response.output_item.done", output_index=index, item=done_item))
    return events


def text_reply(text: str = "Hi") -> Reply:
    return Reply(events=[created(), *message_events(0, "msg_1", [text]), completed()])


def responses_model(url: str, **overrides: Any) -> Any:
    return make_model(f"{url}/v1", api="openai-responses", id="gpt-test", **overrides)


async def test_text_and_request_shape(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(
            events=[
                created(),
                *message_events(0, "msg_1", ["Hel", "lo"]),
                completed(
                    {
                        "input_tokens": 5000,
                        "input_tokens_details": {"cached_tokens": 4096},
                        "output_tokens": 7,
                        "output_tokens_details": {"reasoning_tokens": 0},
                        "total_tokens": 5007,
                    }
                ),
            ]
        )
    )
    tools = [ToolSpec("bash", "Run", {"type": "object", "properties": {}})]
    request = make_request(responses_model(server.url), tools=tools, session_id="sess-1")
    events = await collect(OpenAIResponsesProvider(), request)
    assert [type(e) for e in events] == [TextStart, TextDelta, TextDelta, TextEnd, UsageUpdate, Done]
    assert events[3] == TextEnd("msg_1", signature="msg_1")
    usage = events[4].usage
    assert (usage.input, usage.output, usage.cache_read, usage.total_tokens) == (904, 7, 4096, 5007)
    assert events[-1] == Done(stop_reason="stop", response_id="resp_1")

    sent = server.requests[0]
    assert sent.path == "/v1/responses"
    body = sent.body
    assert body["instructions"] == "You are terse."
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert body["stream"] is True and body["store"] is False
    assert body["max_output_tokens"] == 32000
    assert body["prompt_cache_key"] == "sess-1"
    assert body["tools"] == [
        {
            "type": "function",
            "name": "bash",
            "description": "Run",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        }
    ]
    assert "reasoning" not in body  # not a reasoning model


async def test_reasoning_summary_becomes_thinking_with_replayable_signature(server: ScriptedServer) -> None:
    reasoning_item = {"type": "reasoning", "id": "rs_1", "summary": []}
    done_item = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Plan A"}, {"type": "summary_text", "text": "Plan B"}],
        "encrypted_content": "gAAAAB",
    }
    server.replies.append(
        Reply(
            events=[
                created(),
                ev("response.output_item.added", output_index=0, item=reasoning_item),
                ev(
                    "response.reasoning_summary_part.added",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                ),
                ev(
                    "response.reasoning_summary_text.delta",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    delta="Plan ",
                ),
                ev(
                    "response.reasoning_summary_text.delta",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=0,
                    delta="A",
                ),
                ev(
                    "response.reasoning_summary_part.added",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=1,
                    part={"type": "summary_text", "text": ""},
                ),
                ev(
                    "response.reasoning_summary_text.delta",
                    item_id="rs_1",
                    output_index=0,
                    summary_index=1,
                    delta="Plan B",
                ),
                ev("response.output_item.done", output_index=0, item=done_item),
                *message_events(1, "msg_1", ["Answer"]),
                completed(),
            ]
        )
    )
    model = responses_model(server.url, reasoning=True)
    events = await collect(OpenAIResponsesProvider(), make_request(model, thinking_level="high"))
    thinking = [e for e in events if isinstance(e, (ThinkingStart, ThinkingDelta, ThinkingEnd))]
    assert isinstance(thinking[0], ThinkingStart)
    assert "".join(e.delta for e in thinking if isinstance(e, ThinkingDelta)) == "Plan A\n\nPlan B"
    end = thinking[-1]
    assert isinstance(end, ThinkingEnd)
    assert json.loads(end.signature) == done_item

    body = server.requests[0].body
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]


async def test_function_call_arguments_streamed(server: ScriptedServer) -> None:
    item = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "bash",
        "arguments": "",
        "status": "in_progress",
    }
    server.replies.append(
        Reply(
            events=[
                created(),
                ev("response.output_item.added", output_index=0, item=item),
                ev(
                    "response.function_call_arguments.delta",
                    item_id="fc_1",
                    output_index=0,
                    delta='{"command"',
                ),
                ev("response.function_call_arguments.delta", item_id="fc_1", output_index=0, delta=': "ls"}'),
                ev(
                    "response.function_call_arguments.done",
                    item_id="fc_1",
                    output_index=0,
                    arguments='{"command": "ls"}',
                ),
                ev(
                    "response.output_item.done",
                    output_index=0,
                    item={**item, "arguments": '{"command": "ls"}', "status": "completed"},
                ),
                completed(),
            ]
        )
    )
    events = await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert events[0] == ToolCallStart("fc_1", id="call_1|fc_1", name="bash")
    assert json.loads("".join(e.delta for e in events if isinstance(e, ToolCallDelta))) == {"command": "ls"}
    assert ToolCallEnd("fc_1") in events
    assert events[-1].stop_reason == "toolUse"


async def test_incomplete_max_output_tokens_is_length(server: ScriptedServer) -> None:
    incomplete = ev(
        "response.incomplete",
        response=response("incomplete", None, incomplete_details={"reason": "max_output_tokens"}),
    )
    server.replies.append(Reply(events=[created(), *message_events(0, "msg_1", ["cut"]), incomplete]))
    events = await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert events[-1].stop_reason == "length"


async def test_history_replays_reasoning_and_function_calls(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    reasoning = {"type": "reasoning", "id": "rs_9", "summary": [], "encrypted_content": "enc"}
    history = [
        UserMessage(content="do it"),
        AssistantMessage(
            api="openai-responses",
            provider="test",
            model="gpt-test",
            stop_reason="toolUse",
            content=[
                ThinkingContent(thinking="", thinking_signature=json.dumps(reasoning)),
                TextContent(text="Running.", text_signature="msg_9"),
                ToolCall(id="call_9|fc_9", name="bash", arguments={"command": "ls"}),
                ToolCall(id="call_10|fc_10", name="bash", arguments={"command": "pwd"}),
            ],
        ),
        ToolResultMessage(tool_call_id="call_9|fc_9", tool_name="bash", content=[TextContent(text="a.py")]),
        # A turn from another API: its thinking is not replayed and ids are used as they are.
        AssistantMessage(
            api="anthropic-messages",
            stop_reason="stop",
            content=[ThinkingContent(thinking="x", thinking_signature="sig"), TextContent(text="Ok.")],
        ),
        UserMessage(content="thanks"),
    ]
    model = responses_model(server.url, reasoning=True)
    await collect(OpenAIResponsesProvider(), make_request(model, history, thinking_level="off"))
    body = server.requests[0].body
    assert body["reasoning"] == {"effort": "none"}
    # Asked for even at "off": a model that reasons anyway still gets its reasoning back next time.
    assert body["include"] == ["reasoning.encrypted_content"]
    items = body["input"]
    assert items[1] == reasoning
    assert items[2]["id"] == "msg_9" and items[2]["content"][0]["text"] == "Running."
    assert items[3] == {
        "type": "function_call",
        "call_id": "call_9",
        "name": "bash",
        "arguments": '{"command": "ls"}',
        "id": "fc_9",
    }
    assert items[4]["call_id"] == "call_10"
    assert items[5] == {"type": "function_call_output", "call_id": "call_9", "output": "a.py"}
    assert items[6] == {
        "type": "function_call_output",
        "call_id": "call_10",
        "output": "Tool call was aborted",
    }
    foreign = items[7]
    assert foreign["type"] == "message" and "id" not in foreign
    assert items[8] == {"role": "user", "content": [{"type": "input_text", "text": "thanks"}]}
    assert len(items) == 9


@pytest.mark.parametrize(
    ("reasoning", "level", "thinking_map", "expected"),
    [
        (True, "minimal", None, {"effort": "minimal", "summary": "auto"}),
        (True, "medium", None, {"effort": "medium", "summary": "auto"}),
        (True, "xhigh", None, {"effort": "xhigh", "summary": "auto"}),
        (True, "low", {"low": "medium"}, {"effort": "medium", "summary": "auto"}),
        (True, "off", None, {"effort": "none"}),
        (False, "high", None, None),
    ],
)
async def test_thinking_level_request_parameters(
    server: ScriptedServer, reasoning: bool, level: str, thinking_map: Any, expected: Any
) -> None:
    server.replies.append(text_reply())
    model = responses_model(server.url, reasoning=reasoning, thinking_level_map=thinking_map)
    await collect(OpenAIResponsesProvider(), make_request(model, thinking_level=level))
    assert server.requests[0].body.get("reasoning") == expected


async def test_response_failed_context_overflow(server: ScriptedServer) -> None:
    failed = ev(
        "response.failed",
        response=response(
            "failed",
            None,
            error={
                "code": "context_length_exceeded",
                "message": "Your input exceeds the context window of this model.",
            },
        ),
    )
    server.replies.append(Reply(events=[created(), failed]))
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert caught.value.kind == "overflow"
    assert "exceeds the context window" in caught.value.message


async def test_500_is_transient_and_not_retried(server: ScriptedServer) -> None:
    server.replies.append(
        Reply(status=503, body={"error": {"message": "upstream unavailable", "type": "server_error"}})
    )
    server.replies.append(text_reply())
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert caught.value.kind == "transient"
    assert caught.value.status == 503
    assert len(server.requests) == 1


async def test_403_is_auth(server: ScriptedServer) -> None:
    server.replies.append(Reply(status=403, body={"error": {"message": "forbidden"}}))
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert caught.value.kind == "auth"


async def test_connection_dropped_and_missing_completion_are_transient(server: ScriptedServer) -> None:
    dropped = text_reply()
    dropped.drop_after = 3
    server.replies.append(dropped)
    unfinished = text_reply()
    unfinished.events = unfinished.events[:-1]
    server.replies.append(unfinished)
    for _ in range(2):
        with pytest.raises(ProviderError) as caught:
            await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
        assert caught.value.kind == "transient"
    assert "stream ended without a finish" in caught.value.message


async def test_cancellation_mid_stream_closes_the_response(server: ScriptedServer) -> None:
    reply = text_reply()
    reply.stall_after = 4
    server.replies.append(reply)
    assert await cancel_after_first_text(OpenAIResponsesProvider(), make_request(responses_model(server.url)), server)


async def test_usage_update_precedes_done(server: ScriptedServer) -> None:
    server.replies.append(text_reply())
    events = await collect(OpenAIResponsesProvider(), make_request(responses_model(server.url)))
    assert isinstance(events[-2], UsageUpdate) and isinstance(events[-1], Done)
