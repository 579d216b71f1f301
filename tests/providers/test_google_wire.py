"""Google's Gemini API (`google-generative-ai`) against a local server that speaks its SSE wire.

The fixtures are small hand-written chunks in the shapes Gemini sends (CRLF-framed `data:` lines,
whole `GenerateContentResponse` objects): thought parts, signatures on text and function calls,
parallel calls with and without ids, code execution parts, usage with cached content, the finish
reasons, and error bodies with a RetryInfo delay.
"""

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
from atomic.core.providers.base import ToolSpec
from atomic.core.providers.google_generative import GoogleGenerativeAIProvider
from atomic.core.providers.google_request import GENERATED_ID_PREFIX, UNSIGNED_CALL_SIGNATURE
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

ADD = ToolSpec("add", "Add two numbers", {"type": "object", "properties": {"a": {"type": "integer"}}})


def frame(parts: list[dict[str, Any]] | None = None, finish: str | None = None, usage: dict[str, Any] | None = None,
          **extra: Any) -> bytes:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts or []}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-x", "responseId": "resp-1", **extra}
    if usage is not None:
        chunk["usageMetadata"] = usage
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


def usage(prompt: int, candidates: int, thoughts: int = 0, cached: int = 0) -> dict[str, Any]:
    data = {"promptTokenCount": prompt, "candidatesTokenCount": candidates, "thoughtsTokenCount": thoughts,
            "totalTokenCount": prompt + candidates + thoughts}
    if cached:
        data["cachedContentTokenCount"] = cached
    return data


def gemini(server: ScriptedServer, model_id: str = "gemini-3-pro-preview", **overrides: Any) -> Any:
    fields: dict[str, Any] = {"api": "google-generative-ai", "provider": "google", "reasoning": True,
                              "input": ["text", "image"]}
    fields.update(overrides)
    return make_model(f"{server.url}/v1beta", id=model_id, **fields)


async def run(server: ScriptedServer, model: Any, frames: list[bytes], history: list[Any] | None = None,
              level: str = "high") -> Outcome:
    server.replies.append(Reply(raw_frames=frames))
    request = make_request(model, history, tools=[ADD], thinking_level=level)
    outcome = await assemble(GoogleGenerativeAIProvider(), request)
    if outcome.error is None:
        outcome.assert_deltas_rebuild_message()
    return outcome


async def test_text_with_thoughts_and_the_request_shape(server: ScriptedServer) -> None:
    model = gemini(server)
    outcome = await run(server, model, [
        frame([{"text": "**Planning**\n\nThe user wants", "thought": True}], usage=usage(11, 0, 20)),
        frame([{"text": " a greeting.", "thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="}]),
        frame([{"text": "Oi!"}], usage=usage(11, 2, 40)),
        frame([{"text": "", "thoughtSignature": "c2lnLXRleHQ="}], finish="STOP", usage=usage(11, 3, 40)),
    ])
    assert outcome.error is None
    message = outcome.message
    assert message.stop_reason == "stop" and message.response_id == "resp-1"
    thinking, text = message.content
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "**Planning**\n\nThe user wants a greeting."
    assert thinking.thinking_signature == "c2lnLXRob3VnaHQ="
    assert isinstance(text, TextContent) and text.text == "Oi!" and text.text_signature == "c2lnLXRleHQ="
    assert (message.usage.input, message.usage.output, message.usage.cache_read) == (11, 43, 0)

    sent = server.requests[0]
    assert sent.path == "/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == "sk-test-secret-key"
    assert "authorization" not in sent.headers
    body = sent.body
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["systemInstruction"] == {"parts": [{"text": "You are terse."}]}
    assert body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"}
    assert body["generationConfig"]["maxOutputTokens"] == 32000
    assert body["tools"] == [{"functionDeclarations": [
        {"name": "add", "description": "Add two numbers", "parametersJsonSchema": ADD.parameters}]}]


async def test_parallel_calls_then_the_next_request(server: ScriptedServer) -> None:
    model = gemini(server)
    outcome = await run(server, model, [
        frame([{"functionCall": {"name": "add", "args": {"a": 2}, "id": "8hd01vsf"}, "thoughtSignature": "U0lH"},
               {"functionCall": {"name": "add", "args": {"a": 3}, "id": "k0srpqrc"}}], usage=usage(60, 20, 90)),
        frame([{"text": ""}], finish="STOP", usage=usage(60, 20, 90)),
    ])
    message = outcome.message
    assert message.stop_reason == "toolUse"
    first, second = message.tool_calls()
    assert (first.id, first.arguments, first.thought_signature) == ("8hd01vsf", {"a": 2}, "U0lH")
    assert (second.id, second.arguments, second.thought_signature) == ("k0srpqrc", {"a": 3}, None)

    history: list[Any] = [
        UserMessage(content="add"), message,
        ToolResultMessage(tool_call_id="8hd01vsf", tool_name="add", content=[TextContent(text="2")]),
        ToolResultMessage(tool_call_id="k0srpqrc", tool_name="add", content=[TextContent(text="oops")], is_error=True),
    ]
    await run(server, model, [frame([{"text": "5"}], finish="STOP")], history)
    contents = server.requests[-1].body["contents"]
    assert contents[1] == {"role": "model", "parts": [
        {"functionCall": {"name": "add", "args": {"a": 2}, "id": "8hd01vsf"}, "thoughtSignature": "U0lH"},
        {"functionCall": {"name": "add", "args": {"a": 3}, "id": "k0srpqrc"}},
    ]}
    # Both results in the one user turn that follows, in call order.
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "add", "response": {"output": "2"}, "id": "8hd01vsf"}},
        {"functionResponse": {"name": "add", "response": {"error": "oops"}, "id": "k0srpqrc"}},
    ]}
    assert len(contents) == 3


async def test_calls_without_ids_get_atomic_ids_that_are_not_sent_back(server: ScriptedServer) -> None:
    model = gemini(server, "gemini-2.5-flash")
    outcome = await run(server, model, [
        frame([{"functionCall": {"name": "add", "args": {"a": 1}}}, {"functionCall": {"name": "add", "args": {}}}],
              finish="STOP"),
    ])
    first, second = outcome.message.tool_calls()
    assert first.id.startswith(GENERATED_ID_PREFIX) and second.id.startswith(GENERATED_ID_PREFIX)
    assert first.id != second.id
    history = [UserMessage(content="add"), outcome.message,
               ToolResultMessage(tool_call_id=first.id, tool_name="add", content=[TextContent(text="1")]),
               ToolResultMessage(tool_call_id=second.id, tool_name="add", content=[TextContent(text="0")])]
    await run(server, model, [frame([{"text": "ok"}], finish="STOP")], history)
    contents = server.requests[-1].body["contents"]
    assert [p["functionCall"] for p in contents[1]["parts"]] == [{"name": "add", "args": {"a": 1}}, {"name": "add", "args": {}}]
    assert [p["functionResponse"] for p in contents[2]["parts"]] == [
        {"name": "add", "response": {"output": "1"}}, {"name": "add", "response": {"output": "0"}}]
    assert server.requests[-1].body["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingBudget": 24576}


async def test_foreign_history_loses_its_thoughts_and_gets_the_placeholder_signature(server: ScriptedServer) -> None:
    model = gemini(server)
    foreign = AssistantMessage(
        api="anthropic-messages", provider="anthropic", model="claude", stop_reason="toolUse",
        content=[ThinkingContent(thinking="hmm", thinking_signature="anthropic-sig"), TextContent(text="Let me add."),
                 ToolCall(id="toolu_1", name="add", arguments={"a": 1})],
    )
    history = [UserMessage(content="add"), foreign,
               ToolResultMessage(tool_call_id="toolu_1", tool_name="add", content=[TextContent(text="1")])]
    await run(server, model, [frame([{"text": "1"}], finish="STOP")], history)
    contents = server.requests[-1].body["contents"]
    assert contents[1]["parts"] == [
        {"text": "Let me add."},
        {"functionCall": {"name": "add", "args": {"a": 1}, "id": "toolu_1"}, "thoughtSignature": UNSIGNED_CALL_SIGNATURE},
    ]


async def test_code_execution_parts_are_kept_and_sent_back_in_place(server: ScriptedServer) -> None:
    model = gemini(server, "gemini-3-flash-preview")
    code = {"executableCode": {"language": "PYTHON", "code": "print(6*7)", "id": "x1"}, "thoughtSignature": "Q09ERQ=="}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "42\n", "id": "x1"}}
    outcome = await run(server, model, [
        frame([code, {"text": ""}]), frame([result]),
        frame([{"text": "It is 42."}], finish="STOP", usage={"promptTokenCount": 46, "toolUsePromptTokenCount": 10,
                                                              "candidatesTokenCount": 5, "totalTokenCount": 61}),
    ])
    message = outcome.message
    assert [type(b) for b in message.content] == [TextContent] and message.text() == "It is 42."
    assert [b.data for b in message.provider_blocks or []] == [code, result]
    assert message.usage.input == 56
    history = [UserMessage(content="6*7?"), message, UserMessage(content="thanks")]
    await run(server, model, [frame([{"text": "np"}], finish="STOP")], history)
    assert server.requests[-1].body["contents"][1]["parts"] == [code, result, {"text": "It is 42."}]


async def test_images_in_and_from_tools_go_in_the_user_turn(server: ScriptedServer) -> None:
    model = gemini(server)
    image = ImageContent(data="aW1n", mime_type="image/png")
    call = AssistantMessage(api="google-generative-ai", provider="google", model="gemini-3-pro-preview",
                            stop_reason="toolUse", content=[ToolCall(id="c1", name="add", arguments={}, thought_signature="Uw==")])
    history = [UserMessage(content=[TextContent(text="look"), image]), call,
               ToolResultMessage(tool_call_id="c1", tool_name="add", content=[TextContent(text="see"), image])]
    await run(server, model, [frame([{"text": "a cat"}], finish="STOP")], history)
    contents = server.requests[-1].body["contents"]
    png = {"inlineData": {"mimeType": "image/png", "data": "aW1n"}}
    assert contents[0] == {"role": "user", "parts": [{"text": "look"}, png]}
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "add", "response": {"output": "see"}, "id": "c1"}}, png]}


async def test_cached_content_counts_as_cache_reads_not_input(server: ScriptedServer) -> None:
    outcome = await run(server, gemini(server, "gemini-2.5-flash"), [
        frame([{"text": "Paris."}], finish="STOP", usage=usage(3520, 2, 42, cached=3512)),
    ])
    used = outcome.message.usage
    assert (used.input, used.cache_read, used.output, used.total_tokens) == (8, 3512, 44, 3564)


async def test_max_tokens_is_a_length_stop_even_without_parts(server: ScriptedServer) -> None:
    outcome = await run(server, gemini(server, "gemini-2.5-pro"), [
        b'data: {"candidates":[{"content":{"role":"model"},"finishReason":"MAX_TOKENS","index":0}],'
        b'"usageMetadata":{"promptTokenCount":15,"thoughtsTokenCount":2,"totalTokenCount":17}}\r\n\r\n',
    ])
    assert outcome.error is None and outcome.message.stop_reason == "length" and outcome.message.content == []


@pytest.mark.parametrize(("reason", "words"), [("SAFETY", "safety filters"), ("MODEL_ARMOR", "Model Armor"),
                                               ("RECITATION", "copyrighted"), ("SOMETHING_NEW", "stopped early")])
async def test_blocking_finish_reasons_are_error_stops(server: ScriptedServer, reason: str, words: str) -> None:
    outcome = await run(server, gemini(server), [
        f'data: {{"candidates":[{{"content":{{}},"finishReason":"{reason}","finishMessage":"Filtered."}}]}}\r\n\r\n'.encode(),
    ])
    assert outcome.error is not None and outcome.message.stop_reason == "error"
    assert reason in outcome.error.message and words in outcome.error.message and "Filtered." in outcome.error.message
    assert outcome.error.kind == "fatal"


async def test_a_blocked_prompt_is_an_error(server: ScriptedServer) -> None:
    outcome = await run(server, gemini(server), [b'data: {"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}\r\n\r\n'])
    assert outcome.error is not None and "PROHIBITED_CONTENT" in outcome.error.message


async def test_a_stream_without_a_finish_reason_is_an_error(server: ScriptedServer) -> None:
    outcome = await run(server, gemini(server), [frame([{"text": "Half an ans"}])])
    assert outcome.error is not None and outcome.error.kind == "transient"
    assert "finishReason" in outcome.error.message and outcome.message.text() == "Half an ans"


async def test_a_429_carries_the_servers_message_and_its_retry_delay(server: ScriptedServer) -> None:
    body = {"error": {"code": 429, "message": "You exceeded your current quota, please check your plan.",
                      "status": "RESOURCE_EXHAUSTED", "details": [
                          {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []},
                          {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}}
    server.replies.append(Reply(status=429, body=body))
    outcome = await assemble(GoogleGenerativeAIProvider(), make_request(gemini(server)))
    error = outcome.error
    assert error is not None and error.status == 429 and error.kind == "transient"
    assert error.message == "429 RESOURCE_EXHAUSTED: You exceeded your current quota, please check your plan."
    assert error.retry_after_s == pytest.approx(34.4)
    assert "sk-test-secret-key" not in error.message


async def test_a_400_in_a_list_body_and_a_key_echoed_back_is_scrubbed(server: ScriptedServer) -> None:
    body = [{"error": {"code": 400, "message": "API key sk-test-secret-key not valid.", "status": "INVALID_ARGUMENT"}}]
    server.replies.append(Reply(status=400, body=body))
    outcome = await assemble(GoogleGenerativeAIProvider(), make_request(gemini(server)))
    assert outcome.error is not None and outcome.error.kind == "fatal"
    assert outcome.error.message == "400 INVALID_ARGUMENT: API key *** not valid."


async def test_an_error_chunk_mid_stream_ends_the_turn_with_its_message(server: ScriptedServer) -> None:
    outcome = await run(server, gemini(server), [
        frame([{"text": "Hel"}]),
        b'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n',
    ])
    assert outcome.error is not None and outcome.error.kind == "transient"
    assert outcome.error.message == "UNAVAILABLE: The model is overloaded."
