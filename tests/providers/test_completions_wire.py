"""Chat Completions: the stream shapes real servers send, through the provider and the assembler.

Each fixture is a small hand-written reply in the shape one server family really sends (OpenAI,
DeepSeek, Groq, Hugging Face, llama.cpp, Mistral, OpenRouter, xAI, Z.ai); each test checks the
assembled message, the usage, and where a tool call follows, the next request the server gets.
"""

from __future__ import annotations

import json
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.providers.base import ToolSpec
from atomic.core.providers.openai_completions import OpenAICompletionsProvider
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

DONE = (None, "[DONE]")
WEATHER = ToolSpec("weather", "Weather for a place", {"type": "object", "properties": {"city": {"type": "string"}}})


def c(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> tuple[None, dict[str, Any]]:
    data: dict[str, Any] = {"id": "gen-7", "object": "chat.completion.chunk", "model": "m"}
    data["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    data.update(extra)
    return (None, data)


def call(index: int, args: str, call_id: str | None = None, name: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if call_id:
        entry.update(id=call_id, type="function")
        entry["function"]["name"] = name
    return {"tool_calls": [entry]}


def model_for(server: ScriptedServer, **overrides: Any) -> Any:
    return make_model(f"{server.url}/v1", api="openai-completions", **overrides)


async def run(server: ScriptedServer, model: Any, events: list[Any], history: list[Any] | None = None) -> Outcome:
    server.replies.append(Reply(events=events))
    request = make_request(model, history, tools=[WEATHER], thinking_level="high")
    outcome = await assemble(OpenAICompletionsProvider(), request)
    outcome.assert_deltas_rebuild_message()
    return outcome


async def next_request(server: ScriptedServer, model: Any, outcome: Outcome, results: dict[str, str]) -> dict[str, Any]:
    """Send the turn back with tool results, as the agent loop does, and return the body the server saw."""
    history: list[Any] = [UserMessage(content="weather?"), outcome.message]
    history += [ToolResultMessage(tool_call_id=i, tool_name="weather", content=[TextContent(text=t)]) for i, t in results.items()]
    server.replies.append(Reply(events=[c({"content": "ok"}), c({}, "stop"), DONE]))
    await assemble(OpenAICompletionsProvider(), make_request(model, history, tools=[WEATHER], thinking_level="high"))
    body: dict[str, Any] = server.requests[-1].body
    return body


def usage(prompt: int, completion: int, **extra: Any) -> dict[str, Any]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion, **extra}


async def test_openai_parallel_tools_with_split_arguments(server: ScriptedServer) -> None:
    model = model_for(server, provider="openai", reasoning=True)
    outcome = await run(server, model, [
        c({"role": "assistant", "content": None}),
        c(call(0, "", "call_a", "weather")), c(call(0, '{"city"')), c(call(0, ': "Rome"}')),
        c(call(1, "", "call_b", "weather")), c(call(1, '{"city": ')), c(call(1, '"Oslo"}')),
        c({}, "tool_calls"),
        c(None, usage=usage(40, 90, completion_tokens_details={"reasoning_tokens": 64},
                            prompt_tokens_details={"cached_tokens": 0})),
        DONE,
    ])
    message = outcome.message
    assert [(b.id, b.arguments) for b in message.tool_calls()] == [("call_a", {"city": "Rome"}), ("call_b", {"city": "Oslo"})]
    assert message.stop_reason == "toolUse"
    # completion_tokens already holds the reasoning tokens here (total = prompt + completion).
    assert (message.usage.input, message.usage.output, message.usage.total_tokens) == (40, 90, 130)
    body = await next_request(server, model, outcome, {"call_a": "20 C", "call_b": "5 C"})
    assistant = body["messages"][2]
    assert assistant == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Rome"}'}},
            {"id": "call_b", "type": "function", "function": {"name": "weather", "arguments": '{"city": "Oslo"}'}},
        ],
    }
    assert [m["tool_call_id"] for m in body["messages"][3:5]] == ["call_a", "call_b"]


async def test_groq_and_huggingface_whole_tool_calls_after_text(server: ScriptedServer) -> None:
    # Kimi on Groq (also behind Hugging Face's router): each call arrives complete in one chunk,
    # and usage comes both in the finishing chunk and in a trailing chunk without choices.
    model = model_for(server, provider="groq")
    groq_usage = {"queue_time": 0.1, "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
    outcome = await run(server, model, [
        c({"role": "assistant", "content": ""}, x_groq={"id": "req_1"}),
        c({"content": "Checking "}), c({"content": "both."}),
        c({"tool_calls": [{"id": "functions.weather:0", "type": "function", "index": 0,
                           "function": {"name": "weather", "arguments": '{"city":"Rome"}'}}]}),
        c({"tool_calls": [{"id": "functions.weather:1", "type": "function", "index": 1,
                           "function": {"name": "weather", "arguments": '{"city":"Oslo"}'}}]}),
        c({}, "tool_calls", usage=groq_usage, x_groq={"usage": groq_usage}),
        c(None, usage=groq_usage),
        DONE,
    ])
    message = outcome.message
    assert message.text() == "Checking both."
    assert [b.id for b in message.tool_calls()] == ["functions.weather:0", "functions.weather:1"]
    assert (message.usage.input, message.usage.output) == (120, 30)
    body = await next_request(server, model, outcome, {"functions.weather:0": "1", "functions.weather:1": "2"})
    assistant = body["messages"][2]
    assert assistant["content"] == "Checking both."
    assert "reasoning" not in assistant and "reasoning_content" not in assistant


async def test_groq_tool_use_failed_error_event_ends_the_turn_clearly(server: ScriptedServer) -> None:
    model = model_for(server, provider="groq", reasoning=True)
    failure = {"error": {"message": "Tool call validation failed: parameters for tool weather did not match schema",
                         "type": "invalid_request_error", "code": "tool_use_failed",
                         "failed_generation": '{"name": "weather", "arguments": {}}', "status_code": 400}}
    outcome = await run(server, model, [
        c({"role": "assistant", "content": ""}),
        c({"reasoning": "Call it", "channel": "analysis"}), c({"reasoning": " wrongly.", "channel": "analysis"}),
        ("error", failure),
    ])
    assert outcome.error is not None
    assert outcome.error.kind == "fatal" and outcome.error.status == 400
    assert outcome.message.stop_reason == "error"
    assert outcome.message.error_message == (
        "tool_use_failed: Tool call validation failed: parameters for tool weather did not match schema"
    )
    assert outcome.message.content == [ThinkingContent(thinking="Call it wrongly.")]


async def test_deepseek_reasoner_usage_and_reasoning_sent_back(server: ScriptedServer) -> None:
    model = model_for(server, provider="deepseek", reasoning=True)
    outcome = await run(server, model, [
        c({"role": "assistant", "content": None, "reasoning_content": ""}),
        c({"content": None, "reasoning_content": "Need the "}), c({"content": None, "reasoning_content": "tool."}),
        c({"tool_calls": [{"index": 0, "id": "call_00_x", "type": "function",
                           "function": {"name": "weather", "arguments": ""}}]}),
        c(call(0, '{"city":')), c(call(0, '"Rome"}')),
        c({"content": ""}, "tool_calls", usage=usage(300, 50, prompt_tokens_details={"cached_tokens": 256},
                                                     prompt_cache_hit_tokens=256, prompt_cache_miss_tokens=44)),
        DONE,
    ])
    message = outcome.message
    assert message.content[0] == ThinkingContent(thinking="Need the tool.", thinking_signature="reasoning_content")
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (44, 256, 50)
    body = await next_request(server, model, outcome, {"call_00_x": "20 C"})
    assert body["messages"][2]["reasoning_content"] == "Need the tool."
    assert body["thinking"] == {"type": "enabled"}  # inferred thinkingFormat "deepseek"


async def test_deepseek_requires_reasoning_content_on_every_assistant_message(server: ScriptedServer) -> None:
    # A turn from another model (no reasoning of DeepSeek's own) still carries the field, empty.
    model = model_for(server, provider="my-proxy", base_url="https://api.deepseek.com/v1", reasoning=True)
    model = model.model_copy(update={"base_url": f"{server.url}/v1", "compat": {"requiresReasoningContentOnAssistantMessages": True}})
    foreign = AssistantMessage(api="anthropic-messages", provider="anthropic", model="claude", stop_reason="toolUse",
                               content=[ThinkingContent(thinking="secret", thinking_signature="sig"),
                                        ToolCall(id="toolu_1", name="weather", arguments={"city": "Rome"})])
    history = [UserMessage(content="hi"), foreign,
               ToolResultMessage(tool_call_id="toolu_1", tool_name="weather", content=[TextContent(text="x")])]
    server.replies.append(Reply(events=[c({"content": "ok"}), c({}, "stop"), DONE]))
    await assemble(OpenAICompletionsProvider(), make_request(model, history))
    assistant = server.requests[-1].body["messages"][2]
    assert assistant["reasoning_content"] == ""


async def test_llamacpp_reasoning_and_cache_from_timings(server: ScriptedServer) -> None:
    model = model_for(server, provider="llamacpp", base_url="http://localhost:8080/v1", reasoning=True)
    model = model.model_copy(update={"base_url": f"{server.url}/v1"})
    outcome = await run(server, model, [
        c({"role": "assistant", "content": None}),
        c({"reasoning_content": "Use the"}), c({"reasoning_content": " weather tool."}),
        c({"tool_calls": [{"index": 0, "id": "xyz789", "type": "function",
                           "function": {"name": "weather", "arguments": '{"'}}]}),
        c(call(0, 'city":"Rome"}')),
        c({}, "tool_calls"),
        c(None, usage=usage(139, 41), timings={"cache_n": 138, "prompt_n": 1, "predicted_n": 41}),
        DONE,
    ])
    message = outcome.message
    assert message.tool_calls()[0].arguments == {"city": "Rome"}
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (1, 138, 41)
    body = await next_request(server, model, outcome, {"xyz789": "40 C"})
    assert body["messages"][2]["reasoning_content"] == "Use the weather tool."


async def test_mistral_content_parts_map_to_thinking_then_text(server: ScriptedServer) -> None:
    model = model_for(server, provider="mistral", reasoning=True)
    thinking = [{"type": "thinking", "thinking": [{"type": "text", "text": "Look"}]}]
    outcome = await run(server, model, [
        c({"role": "assistant", "content": ""}),
        c({"content": thinking}),
        c({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": " both ways."}]}]}),
        c({"content": [{"type": "thinking", "thinking": []}]}),
        c({"content": [{"type": "text", "text": "Cross "}, {"type": "reference", "reference_ids": [1]}]}),
        c({"content": "carefully."}),
        c({"content": ""}, "stop", usage={"prompt_tokens": 10, "total_tokens": 30, "completion_tokens": 20}),
        DONE,
    ])
    assert outcome.error is None
    assert outcome.message.content == [ThinkingContent(thinking="Look both ways."), TextContent(text="Cross carefully.")]
    assert outcome.message.stop_reason == "stop"


async def test_xai_reasoning_tokens_outside_completion_count_as_output(server: ScriptedServer) -> None:
    model = model_for(server, provider="xai", reasoning=True)
    outcome = await run(server, model, [
        c({"role": "assistant", "reasoning_content": "The"}), c({"reasoning_content": " user wants weather.\n"}),
        c({"tool_calls": [{"id": "call_9", "function": {"name": "weather", "arguments": '{"city":"Rome"}'},
                           "index": 0, "type": "function"}]}),
        c({}, "tool_calls"),
        c(None, usage={"prompt_tokens": 390, "completion_tokens": 26, "total_tokens": 493,
                       "prompt_tokens_details": {"text_tokens": 390, "cached_tokens": 384},
                       "completion_tokens_details": {"reasoning_tokens": 77}}),
        DONE,
    ])
    u = outcome.message.usage
    assert (u.input, u.cache_read, u.output, u.total_tokens) == (6, 384, 103, 493)
    body = await next_request(server, model, outcome, {"call_9": "40 C"})
    assert body["messages"][2]["reasoning_content"] == "The user wants weather.\n"
    assert "reasoning_effort" not in body  # xAI rejects it on these models


async def test_zai_reasoning_text_and_tool_sent_back(server: ScriptedServer) -> None:
    model = model_for(server, provider="zai", reasoning=True)
    outcome = await run(server, model, [
        c({"role": "assistant", "reasoning_content": "Check the"}), c({"role": "assistant", "reasoning_content": " weather."}),
        c({"role": "assistant", "content": "I'll check."}),
        c({"tool_calls": [{"id": "call_z", "index": 0, "type": "function",
                           "function": {"name": "weather", "arguments": '{"city":"Rome"}'}}]}),
        c({"role": "assistant", "content": ""}, "tool_calls",
          usage=usage(173, 87, prompt_tokens_details={"cached_tokens": 172}, completion_tokens_details={"reasoning_tokens": 63})),
        DONE,
    ])
    assert [type(b) for b in outcome.message.content] == [ThinkingContent, TextContent, ToolCall]
    assert (outcome.message.usage.input, outcome.message.usage.cache_read) == (1, 172)
    body = await next_request(server, model, outcome, {"call_z": "40 C"})
    assistant = body["messages"][2]
    assert assistant["content"] == "I'll check." and assistant["reasoning_content"] == "Check the weather."
    assert body["thinking"] == {"type": "enabled", "clear_thinking": False}  # inferred thinkingFormat "zai"


async def test_openrouter_reasoning_details_kept_verbatim_and_sent_back(server: ScriptedServer) -> None:
    model = model_for(server, provider="openrouter", id="anthropic/claude-haiku-4.5", reasoning=True)

    def detail(text: str, **extra: Any) -> dict[str, Any]:
        return {"type": "reasoning.text", "text": text, "format": "anthropic-claude-v1", "index": 0, **extra}

    outcome = await run(server, model, [
        (":", "OPENROUTER PROCESSING"),
        c({"content": "", "role": "assistant", "reasoning": "Weather", "reasoning_details": [detail("Weather")]}),
        c({"content": "", "role": "assistant", "reasoning": " needed.", "reasoning_details": [detail(" needed.")]}),
        c({"content": "", "role": "assistant", "reasoning": None,
           "reasoning_details": [{"type": "reasoning.text", "signature": "EqSIG==", "format": "anthropic-claude-v1", "index": 0}]}),
        c({"role": "assistant", "tool_calls": [{"index": 0, "id": "toolu_1", "type": "function",
                                                "function": {"name": "weather", "arguments": ""}}]}),
        c({"role": "assistant", "tool_calls": [{"index": 0, "function": {"arguments": ""}}]}),
        c({"role": "assistant", "tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Rome"}'}}]}),
        c({"content": "", "role": "assistant"}, "tool_calls", native_finish_reason="tool_use"),
        c({"content": "", "role": "assistant"}, "tool_calls", native_finish_reason="tool_use",
          usage=usage(600, 140, cost=0.001, prompt_tokens_details={"cached_tokens": 0, "cache_write_tokens": 100},
                      completion_tokens_details={"reasoning_tokens": 99})),
        DONE,
    ])
    message = outcome.message
    assert message.content[0].thinking == "Weather needed."
    assert (message.usage.input, message.usage.cache_write, message.usage.output) == (500, 100, 140)
    body = await next_request(server, model, outcome, {"toolu_1": "40 C"})
    assistant = body["messages"][2]
    assert assistant["reasoning"] == "Weather needed."
    assert assistant["reasoning_details"] == [
        {"type": "reasoning.text", "text": "Weather needed.", "format": "anthropic-claude-v1", "index": 0, "signature": "EqSIG=="}
    ]


async def test_openrouter_length_then_error_chunk_is_a_length_stop(server: ScriptedServer) -> None:
    model = model_for(server, provider="openrouter", reasoning=True)
    outcome = await run(server, model, [
        c({"role": "assistant", "content": "", "reasoning": "We need",
           "reasoning_details": [{"type": "reasoning.text", "text": "We need", "index": 0}]}),
        c({"role": "assistant", "content": "", "reasoning": " to answer"}, "length", native_finish_reason="length"),
        c({"role": "assistant", "content": "", "reasoning_details": []}, "length"),
        c({"role": "assistant", "content": ""}, error={"code": 400, "message": "Token limit reached"},
          usage=usage(43, 10, completion_tokens_details={"reasoning_tokens": 11})),
        DONE,
    ])
    assert outcome.error is None
    assert outcome.message.stop_reason == "length"
    assert outcome.message.content[0].thinking == "We need to answer"
    assert (outcome.message.usage.input, outcome.message.usage.output) == (43, 10)


async def test_openrouter_http_429_names_the_upstream_reason(server: ScriptedServer) -> None:
    body = {"error": {"code": 429, "message": "Provider returned error",
                      "metadata": {"provider_name": "Google", "raw": "model is temporarily rate-limited upstream"}}}
    server.replies.append(Reply(status=429, body=body))
    outcome = await assemble(OpenAICompletionsProvider(), make_request(model_for(server, provider="openrouter")))
    assert outcome.error is not None and outcome.error.kind == "transient"
    assert outcome.message.error_message == "429 Provider returned error (model is temporarily rate-limited upstream)"


async def test_undecodable_data_ends_the_turn_as_an_error(server: ScriptedServer) -> None:
    outcome = await run(server, model_for(server), [c({"content": "Hi"}), (None, "{not json"), DONE])
    assert outcome.error is not None and outcome.error.kind == "fatal"
    assert "not JSON" in (outcome.message.error_message or "")
    assert outcome.message.content == [TextContent(text="Hi")]


async def test_responses_tool_ids_are_shortened_for_chat_servers(server: ScriptedServer) -> None:
    model = model_for(server)
    turn = AssistantMessage(api="openai-responses", provider="openai", model="gpt-5", stop_reason="toolUse",
                            content=[ToolCall(id="call_abc|fc_" + "x" * 300, name="weather", arguments={})])
    history = [UserMessage(content="hi"), turn,
               ToolResultMessage(tool_call_id=turn.content[0].id, tool_name="weather", content=[TextContent(text="1")])]
    server.replies.append(Reply(events=[c({"content": "ok"}), c({}, "stop"), DONE]))
    await assemble(OpenAICompletionsProvider(), make_request(model, history))
    messages = server.requests[-1].body["messages"]
    assert messages[2]["tool_calls"][0]["id"] == "call_abc"
    assert messages[3]["tool_call_id"] == "call_abc"
    assert json.loads(messages[2]["tool_calls"][0]["function"]["arguments"]) == {}


async def test_mistral_gets_nine_character_tool_ids_for_foreign_calls(server: ScriptedServer) -> None:
    model = model_for(server, provider="mistral")
    foreign = AssistantMessage(api="openai-completions", provider="openai", model="gpt-4o", stop_reason="toolUse",
                               content=[ToolCall(id="call_7kE4IjtnwXcGbX6h", name="weather", arguments={}),
                                        ToolCall(id="D681PevKs", name="weather", arguments={})])
    history = [UserMessage(content="hi"), foreign,
               ToolResultMessage(tool_call_id="call_7kE4IjtnwXcGbX6h", tool_name="weather", content=[TextContent(text="1")]),
               ToolResultMessage(tool_call_id="D681PevKs", tool_name="weather", content=[TextContent(text="2")])]
    server.replies.append(Reply(events=[c({"content": "ok"}), c({}, "stop"), DONE]))
    await assemble(OpenAICompletionsProvider(), make_request(model, history))
    messages = server.requests[-1].body["messages"]
    ids = [call["id"] for call in messages[2]["tool_calls"]]
    assert len(ids[0]) == 9 and ids[0].isalnum() and ids[1] == "D681PevKs"
    assert [m["tool_call_id"] for m in messages[3:5]] == ids
    assert messages[3]["name"] == "weather"  # Mistral also wants the tool's name on results
