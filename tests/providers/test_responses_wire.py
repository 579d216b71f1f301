"""Responses API: the stream shapes real servers send, through the provider and the assembler.

Small hand-written replies in the shapes of OpenAI (summaries, encrypted reasoning, reasoning
without encrypted content, parallel calls, web search, incomplete, errors), DeepSeek and
LM Studio (reasoning_text content), OpenRouter (raw chain of thought, interleaved items) and a
Codex-style server (explicit end_turn); each test checks the message, usage and, after tool
calls, the next request.
"""

from __future__ import annotations

from typing import Any

from atomic.core.messages import TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from atomic.core.providers.base import ToolSpec
from atomic.core.providers.openai_responses import OpenAIResponsesProvider
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

WEATHER = ToolSpec("weather", "Weather for a place", {"type": "object", "properties": {"city": {"type": "string"}}})


def e(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return (kind, {"type": kind, **fields})


def start(response_id: str = "resp_7") -> list[tuple[str, dict[str, Any]]]:
    response = {"id": response_id, "object": "response", "status": "in_progress", "output": []}
    return [e("response.created", response=response), e("response.in_progress", response=response)]


def end(input_tokens: int = 50, output: int = 20, cached: int = 0, status: str = "completed", **extra: Any) -> tuple[str, dict[str, Any]]:
    usage = {"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": cached},
             "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": input_tokens + output}
    kind = "response.incomplete" if status == "incomplete" else "response.completed"
    return e(kind, response={"id": "resp_7", "status": status, "usage": usage, **extra})


def added(index: int, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return e("response.output_item.added", output_index=index, item=item)


def done(index: int, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return e("response.output_item.done", output_index=index, item=item)


def message(index: int, item_id: str, chunks: list[str], **extra: Any) -> list[tuple[str, dict[str, Any]]]:
    item = {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    events = [added(index, item)]
    events += [e("response.output_text.delta", item_id=item_id, output_index=index, content_index=0, delta=c)
               for c in chunks]
    text = "".join(chunks)
    events.append(done(index, {**item, "status": "completed", **extra,
                               "content": [{"type": "output_text", "text": text, "annotations": []}]}))
    return events


def function_call(index: int, item_id: str, call_id: str, chunks: list[str], stream_args: bool = True) -> list[Any]:
    item = {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id,
            "name": "weather"}
    events = [added(index, item)]
    if stream_args:
        events += [e("response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=c)
                   for c in chunks]
    events.append(done(index, {**item, "status": "completed", "arguments": "".join(chunks)}))
    return events


def reasoning(index: int, item_id: str, summary: list[list[str]] | None = None, text: list[str] | None = None,
              encrypted: str | None = None, done_content: bool = True) -> list[Any]:
    item: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": [], "content": []}
    if encrypted:
        item["encrypted_content"] = encrypted + "-start"
    events = [added(index, item)]
    for number, parts in enumerate(summary or []):
        events.append(e("response.reasoning_summary_part.added", item_id=item_id, output_index=index,
                        summary_index=number, part={"type": "summary_text", "text": ""}))
        events += [e("response.reasoning_summary_text.delta", item_id=item_id, output_index=index,
                     summary_index=number, delta=p) for p in parts]
    events += [e("response.reasoning_text.delta", item_id=item_id, output_index=index, content_index=0, delta=p)
               for p in text or []]
    final = dict(item)
    if encrypted:
        final["encrypted_content"] = encrypted
    final["summary"] = [{"type": "summary_text", "text": "".join(p)} for p in summary or []]
    if text and done_content:
        final["content"] = [{"type": "reasoning_text", "text": "".join(text)}]
    events.append(done(index, final))
    return events


def model_for(server: ScriptedServer, **overrides: Any) -> Any:
    fields = {"id": "gpt-5", "provider": "openai", "reasoning": True, **overrides}
    return make_model(f"{server.url}/v1", api="openai-responses", **fields)


async def run(server: ScriptedServer, model: Any, events: list[Any]) -> Outcome:
    server.replies.append(Reply(events=events))
    outcome = await assemble(OpenAIResponsesProvider(), make_request(model, tools=[WEATHER], thinking_level="high"))
    outcome.assert_deltas_rebuild_message()
    return outcome


async def next_input(server: ScriptedServer, model: Any, outcome: Outcome) -> list[dict[str, Any]]:
    history: list[Any] = [UserMessage(content="hi"), outcome.message]
    history += [ToolResultMessage(tool_call_id=c.id, tool_name=c.name, content=[TextContent(text="21")])
                for c in outcome.message.tool_calls()]
    server.replies.append(Reply(events=[*start(), *message(0, "msg_z", ["ok"]), end()]))
    await assemble(OpenAIResponsesProvider(), make_request(model, history, tools=[WEATHER], thinking_level="high"))
    body = server.requests[-1].body
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    items: list[dict[str, Any]] = body["input"]
    # What the assistant turn became: the items between the user prompt and the first tool output.
    outputs = [i for i, item in enumerate(items) if item.get("type") == "function_call_output"]
    return items[1 : outputs[0] if outputs else len(items)]


async def test_summary_parts_and_encrypted_reasoning_replayed_with_ids(server: ScriptedServer) -> None:
    model = model_for(server)
    outcome = await run(server, model, [
        *start(),
        *reasoning(0, "rs_1", summary=[["**Plan**", "\n\nCall it."], ["**Then**", " answer."]], encrypted="ENC"),
        *function_call(1, "fc_1", "call_1", ['{"city":', '"Rome"}']),
        end(60, 120, cached=32),
    ])
    message = outcome.message
    assert message.content[0].thinking == "**Plan**\n\nCall it.\n\n**Then** answer."
    assert message.tool_calls()[0].id == "call_1|fc_1"
    assert message.tool_calls()[0].arguments == {"city": "Rome"}
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (28, 32, 120)
    assert message.stop_reason == "toolUse" and message.end_turn is None
    replayed = await next_input(server, model, outcome)
    assert replayed[0] == {"type": "reasoning", "id": "rs_1", "encrypted_content": "ENC",
                           "summary": [{"type": "summary_text", "text": "**Plan**\n\nCall it."},
                                       {"type": "summary_text", "text": "**Then** answer."}]}
    assert replayed[1] == {"type": "function_call", "call_id": "call_1", "name": "weather",
                           "arguments": '{"city": "Rome"}', "id": "fc_1"}


async def test_reasoning_without_encrypted_content_is_never_sent(server: ScriptedServer) -> None:
    # gpt-5 asked without `include`: the item has neither encrypted content nor reasoning text.
    model = model_for(server)
    outcome = await run(server, model, [
        *start(), *reasoning(0, "rs_2"), *function_call(1, "fc_2", "call_2", ['{"city":"Oslo"}']), end(),
    ])
    assert isinstance(outcome.message.content[0], ThinkingContent)
    replayed = await next_input(server, model, outcome)
    assert replayed == [{"type": "function_call", "call_id": "call_2", "name": "weather", "arguments": '{"city": "Oslo"}'}]


async def test_deepseek_and_lmstudio_reasoning_text_goes_back_as_content(server: ScriptedServer) -> None:
    model = model_for(server, id="deepseek-v4-flash", provider="deepseek")
    outcome = await run(server, model, [
        *start("0f3c-uuid"),
        *reasoning(0, "9a1b-uuid", text=["The user asks. ", "Call the tool."]),
        # LM Studio: the arguments only arrive in the `.done` events.
        *function_call(1, "7c2d-uuid", "call_00_x", ['{"city": "Tokyo"}'], stream_args=False),
        end(366, 59, cached=256),
    ])
    message = outcome.message
    assert message.content[0].thinking == "The user asks. Call the tool."
    assert message.tool_calls()[0].arguments == {"city": "Tokyo"}
    assert message.response_id == "resp_7"
    replayed = await next_input(server, model, outcome)
    assert replayed[0] == {"type": "reasoning", "id": "9a1b-uuid", "summary": [],
                           "content": [{"type": "reasoning_text", "text": "The user asks. Call the tool."}]}
    assert "id" not in replayed[1]  # no encrypted item: ids would name nothing the server stored


async def test_streamed_reasoning_text_is_kept_when_the_done_item_omits_it(server: ScriptedServer) -> None:
    model = model_for(server, id="glm", provider="lmstudio")
    outcome = await run(server, model, [
        *start(), *reasoning(0, "rs_3", text=["Think", "ing."], done_content=False),
        *function_call(1, "fc_3", "call_3", ["{}"]), end(),
    ])
    replayed = await next_input(server, model, outcome)
    assert replayed[0]["content"] == [{"type": "reasoning_text", "text": "Thinking."}]


async def test_openrouter_interleaved_reasoning_and_message(server: ScriptedServer) -> None:
    # OpenRouter's raw chain of thought: the reasoning item closes only after the message.
    model = model_for(server, id="openai/gpt-oss-20b", provider="openrouter")
    reasoning_item = {"type": "reasoning", "id": "rs_tmp_1", "summary": []}
    outcome = await run(server, model, [
        (":", "OPENROUTER PROCESSING"),
        *start(),
        added(0, reasoning_item),
        e("response.reasoning_text.delta", item_id="rs_tmp_1", output_index=0, content_index=0, delta="2+2 is 4."),
        *message(1, "msg_tmp_1", ["4"]),
        done(0, {**reasoning_item, "content": [{"type": "reasoning_text", "text": "2+2 is 4."}]}),
        end(),
        (None, "[DONE]"),
    ])
    assert outcome.message.content == [ThinkingContent(thinking="2+2 is 4.", thinking_signature=outcome.message.content[0].thinking_signature),
                                       TextContent(text="4", text_signature="msg_tmp_1")]
    assert outcome.message.stop_reason == "stop"


async def test_server_tool_items_are_kept_for_replay_and_unknown_items_skipped(server: ScriptedServer) -> None:
    model = model_for(server)
    search = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    search_done = {**search, "status": "completed", "action": {"type": "search", "query": "weather"}}
    outcome = await run(server, model, [
        *start(),
        *reasoning(0, "rs_1", summary=[["Search first."]], encrypted="ENC1"),
        added(1, search),
        e("response.web_search_call.searching", output_index=1, item_id="ws_1"),
        done(1, search_done),
        added(2, {"id": "x_1", "type": "future_item", "payload": 1}),
        done(2, {"id": "x_1", "type": "future_item", "payload": 1}),
        *message(3, "msg_1", ["Sunny", " today."]),
        end(9463, 582, cached=8320),
    ])
    assert outcome.error is None
    assert [type(b) for b in outcome.message.content] == [ThinkingContent, TextContent]
    assert outcome.message.text() == "Sunny today."
    assert (outcome.message.usage.input, outcome.message.usage.cache_read) == (1143, 8320)
    history = [UserMessage(content="weather?"), outcome.message, UserMessage(content="and tomorrow?")]
    server.replies.append(Reply(events=[*start(), *message(0, "msg_z", ["ok"]), end()]))
    await assemble(OpenAIResponsesProvider(), make_request(model, history))
    items = server.requests[-1].body["input"]
    # The encrypted reasoning, the search it led to, then the answer, in the order they were produced.
    assert [i.get("type") for i in items[1:4]] == ["reasoning", "web_search_call", "message"]
    assert items[2] == search_done and items[3]["id"] == "msg_1"


async def test_parallel_function_calls(server: ScriptedServer) -> None:
    model = model_for(server, id="gpt-4o-mini", reasoning=False)
    outcome = await run(server, model, [
        *start(),
        *function_call(0, "fc_a", "call_a", ['{"city":"Rome"}']),
        *function_call(1, "fc_b", "call_b", ['{"city":"Oslo"}']),
        end(),
    ])
    assert [(c.id, c.arguments) for c in outcome.message.tool_calls()] == [
        ("call_a|fc_a", {"city": "Rome"}), ("call_b|fc_b", {"city": "Oslo"})]
    history: list[Any] = [UserMessage(content="hi"), outcome.message]
    history += [ToolResultMessage(tool_call_id=c.id, tool_name="weather", content=[TextContent(text="1")])
                for c in outcome.message.tool_calls()]
    server.replies.append(Reply(events=[*start(), *message(0, "msg_z", ["ok"]), end()]))
    await assemble(OpenAIResponsesProvider(), make_request(model, history))
    items = server.requests[-1].body["input"]
    assert "include" not in server.requests[-1].body
    assert [i.get("call_id") for i in items[1:5]] == ["call_a", "call_b", "call_a", "call_b"]
    assert all("id" not in i for i in items[1:3])


async def test_incomplete_is_a_length_stop(server: ScriptedServer) -> None:
    outcome = await run(server, model_for(server, reasoning=False), [
        *start(), *message(0, "msg_1", ["Olá"]),
        end(20, 3, status="incomplete", incomplete_details={"reason": "max_output_tokens"}),
    ])
    assert outcome.message.stop_reason == "length" and outcome.message.text() == "Olá"


async def test_insufficient_quota_error_event(server: ScriptedServer) -> None:
    quota = {"type": "insufficient_quota", "code": "insufficient_quota", "param": None,
             "message": "You exceeded your current quota, please check your plan and billing details."}
    outcome = await run(server, model_for(server), [
        *start(),
        ("error", {"type": "error", "error": quota}),
        e("response.failed", response={"id": "resp_7", "status": "failed", "error": {"code": "insufficient_quota", "message": quota["message"]}}),
    ])
    assert outcome.error is not None and outcome.error.kind == "fatal"
    assert outcome.message.error_message == (
        "insufficient_quota: You exceeded your current quota, please check your plan and billing details."
    )


async def test_flat_error_event_and_failed_response(server: ScriptedServer) -> None:
    outcome = await run(server, model_for(server), [
        *start(), e("error", code="server_error", message="The server had an error"),
    ])
    assert outcome.error is not None and outcome.error.kind == "transient"
    assert outcome.message.error_message == "server_error: The server had an error"
    failed = await run(server, model_for(server), [
        *start(), e("response.failed", response={"id": "r", "status": "failed",
                                                 "error": {"code": "invalid_prompt", "message": "Bad prompt"}}),
    ])
    assert failed.message.error_message == "invalid_prompt: Bad prompt"


async def test_http_400_names_the_parameter_problem(server: ScriptedServer) -> None:
    body = {"error": {"code": "decimal_below_min_value", "param": "temperature", "type": "invalid_request_error",
                      "message": "Invalid 'temperature': decimal below minimum value."}}
    server.replies.append(Reply(status=400, body=body))
    outcome = await assemble(OpenAIResponsesProvider(), make_request(model_for(server)))
    assert outcome.error is not None and outcome.error.kind == "fatal" and outcome.error.status == 400
    assert outcome.message.error_message == (
        "400 decimal_below_min_value: Invalid 'temperature': decimal below minimum value."
    )


async def test_explicit_end_turn_sets_the_message_end_turn(server: ScriptedServer) -> None:
    outcome = await run(server, model_for(server, id="gpt-5-codex"), [
        *start(), *message(0, "msg_1", ["Done."], end_turn=True), end(),
    ])
    assert outcome.message.end_turn is True
    assert outcome.updates[-1].end_turn is True
    plain = await run(server, model_for(server), [*start(), *message(0, "msg_2", ["Done."]), end()])
    assert plain.message.end_turn is None
    assert all(update.end_turn is None for update in plain.updates)


async def test_undecodable_line_ends_the_turn(server: ScriptedServer) -> None:
    outcome = await run(server, model_for(server), [*start(), *message(0, "msg_1", ["Hi"]), (None, "{oops")])
    assert outcome.error is not None and "not JSON" in (outcome.message.error_message or "")
    assert outcome.message.content == [TextContent(text="Hi", text_signature="msg_1")]


async def test_foreign_tool_ids_are_used_whole(server: ScriptedServer) -> None:
    model = model_for(server)
    from atomic.core.messages import AssistantMessage

    turn = AssistantMessage(api="openai-completions", provider="groq", model="kimi", stop_reason="toolUse",
                            content=[ToolCall(id="functions.weather:0", name="weather", arguments={"city": "Rome"})])
    history = [UserMessage(content="hi"), turn,
               ToolResultMessage(tool_call_id="functions.weather:0", tool_name="weather", content=[TextContent(text="1")])]
    server.replies.append(Reply(events=[*start(), *message(0, "msg_z", ["ok"]), end()]))
    await assemble(OpenAIResponsesProvider(), make_request(model, history))
    items = server.requests[-1].body["input"]
    assert items[1]["call_id"] == "functions.weather:0" and items[2]["call_id"] == "functions.weather:0"


async def test_encrypted_reasoning_without_summary_is_still_replayed(server: ScriptedServer) -> None:
    # o4-mini: the reasoning item has encrypted content but streams no summary text at all.
    model = model_for(server, id="o4-mini")
    outcome = await run(server, model, [
        *start(), *reasoning(0, "rs_5", encrypted="ENC5"), *function_call(1, "fc_5", "call_5", ['{"city":"Rome"}']),
        end(60, 225),
    ])
    assert outcome.message.content[0].thinking == ""
    replayed = await next_input(server, model, outcome)
    assert replayed[0] == {"type": "reasoning", "id": "rs_5", "summary": [], "encrypted_content": "ENC5"}
    assert replayed[1]["id"] == "fc_5"
