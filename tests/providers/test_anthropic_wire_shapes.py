"""Every Anthropic wire shape, read by Atomic and by the official `anthropic` SDK from the same local server.

For each shape: Atomic's final message (content, kept server blocks, usage) equals what the SDK's
own stream accumulator builds; the `message_update` deltas rebuild exactly that final message; and
the request Atomic sends next (the tool results, or the user's next prompt) is one the API accepts
(tests/providers/anthropic_checks.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from atomic.core.agent.assembler import MessageAssembler
from atomic.core.events import MessageUpdate
from atomic.core.messages import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.providers.anthropic_messages import API, AnthropicMessagesProvider
from atomic.core.providers.base import ProviderError
from tests.providers import anthropic_fixtures as fx
from tests.providers.anthropic_checks import request_problems
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer


async def atomic_turn(server: ScriptedServer, reply: Reply, history: list[Any] | None = None,
                      ) -> tuple[AssistantMessage, list[MessageUpdate]]:
    server.replies.append(reply)
    model = make_model(server.url, id="claude-test", reasoning=True)
    message = AssistantMessage(api=API, provider=model.provider, model=model.id)
    updates: list[MessageUpdate] = []
    assembler = MessageAssembler(message, updates.append, lambda usage: None)
    assembler.start()
    request = make_request(model, history or [UserMessage(content="hi")], thinking_level="low")
    async for event in AnthropicMessagesProvider().stream(request):
        assembler.feed(event)
    return message, updates


async def sdk_message(server: ScriptedServer, reply: Reply) -> Any:
    from anthropic import AsyncAnthropic

    server.replies.append(reply)
    client = AsyncAnthropic(base_url=server.url, api_key="sk-test", max_retries=0)
    try:
        async with client.beta.messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            return await stream.get_final_message()
    finally:
        await client.close()


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_none(v) for v in value]
    return value


def atomic_blocks(message: AssistantMessage) -> list[Any]:
    """Atomic's message as one ordered list: visible content with the kept blocks at their places."""
    kept = sorted(message.provider_blocks or [], key=lambda b: b.position)
    out: list[Any] = []
    for position, block in enumerate([*message.content, None]):
        out += [("opaque", _without_none(k.data)) for k in kept if k.position == position]
        if isinstance(block, TextContent):
            out.append(("text", block.text))
        elif isinstance(block, ThinkingContent) and block.redacted:
            out.append(("redacted", block.thinking_signature))
        elif isinstance(block, ThinkingContent):
            out.append(("thinking", block.thinking, block.thinking_signature))
        elif isinstance(block, ToolCall):
            out.append(("tool", block.id, block.name, block.arguments))
    return out


def sdk_blocks(message: Any) -> list[Any]:
    out: list[Any] = []
    for block in message.content:
        data = block.model_dump(exclude_none=True)
        kind = data["type"]
        if kind == "text":
            out.append(("text", data["text"]))  # citations are not part of Atomic's text content
        elif kind == "redacted_thinking":
            out.append(("redacted", data["data"]))
        elif kind == "thinking":
            out.append(("thinking", data["thinking"], data["signature"]))
        elif kind == "tool_use":
            out.append(("tool", data["id"], data["name"], data["input"]))
        else:
            out.append(("opaque", data))
    return out


def rebuilt_from_updates(updates: list[MessageUpdate]) -> dict[int, str]:
    """What a client that only reads message_update deltas has for each content index."""
    parts: dict[int, str] = {}
    for update in updates:
        event = update.assistant_message_event
        if event.type.endswith("_start"):
            parts[event.content_index or 0] = ""
        elif event.type.endswith("_delta"):
            parts[event.content_index or 0] += event.delta or ""
    return parts


def assert_deltas_rebuild(message: AssistantMessage, updates: list[MessageUpdate]) -> None:
    rebuilt = rebuilt_from_updates(updates)
    assert sorted(rebuilt) == list(range(len(message.content)))
    for index, block in enumerate(message.content):
        if isinstance(block, TextContent):
            assert rebuilt[index] == block.text
        elif isinstance(block, ThinkingContent):
            assert rebuilt[index] == block.thinking
        elif isinstance(block, ToolCall):
            assert (json.loads(rebuilt[index]) if rebuilt[index] else {}) == block.arguments
    ends = [u.assistant_message_event for u in updates if u.assistant_message_event.type == "done"]
    assert len(ends) == 1 and ends[0].reason == message.stop_reason
    assert all(u.end_turn is None for u in updates)  # Anthropic sends no explicit end-of-turn field


SHAPES: dict[str, tuple[Callable[[], Reply], str]] = {
    "plain-text": (fx.plain_text, "stop"),
    "text-thinking-text": (fx.text_thinking_text, "stop"),
    "signed-empty-thinking": (fx.signed_empty_thinking, "stop"),
    "redacted-thinking": (fx.redacted_thinking, "stop"),
    "max-tokens": (fx.max_tokens, "length"),
    "stop-sequence": (fx.stop_sequence, "stop"),
    "gateway-usage-in-message-delta": (fx.gateway_usage, "stop"),
    "code-execution-with-cache": (fx.code_execution_cached, "stop"),
    "compaction-block": (fx.compaction_then_text, "stop"),
    "mcp-blocks": (fx.mcp_blocks, "stop"),
    "web-search-citations": (fx.web_search, "stop"),
    "pause-turn": (fx.paused_search, "stop"),
    "text-and-tool": (fx.text_and_tool, "toolUse"),
    "parallel-tools-empty-input": (fx.parallel_tools_only, "toolUse"),
    "parallel-tools-with-text": (fx.parallel_tools_with_text, "toolUse"),
    "thinking-tool-empty-input": (fx.thinking_then_tool_empty_input, "toolUse"),
    "thinking-tool-use": (fx.thinking_then_tool, "toolUse"),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_atomic_and_the_sdk_build_the_same_message(server: ScriptedServer, shape: str) -> None:
    build, stop_reason = SHAPES[shape]
    message, updates = await atomic_turn(server, build())
    reference = await sdk_message(server, build())

    assert atomic_blocks(message) == sdk_blocks(reference)
    assert message.stop_reason == stop_reason
    assert message.response_id == reference.id
    usage = message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (
        reference.usage.input_tokens,
        reference.usage.output_tokens,
        reference.usage.cache_read_input_tokens or 0,
        reference.usage.cache_creation_input_tokens or 0,
    )
    assert usage.total_tokens == usage.input + usage.output + usage.cache_read + usage.cache_write
    assert message.end_turn is None
    assert_deltas_rebuild(message, updates)
    # The visible content holds only text, thinking and tool calls.
    assert all(isinstance(b, TextContent | ThinkingContent | ToolCall) for b in message.content)


async def test_usage_figures(server: ScriptedServer) -> None:
    message, _ = await atomic_turn(server, fx.code_execution_cached())
    # input excludes cached tokens (Anthropic reports them apart); message_delta's figures win.
    assert message.usage.model_dump(include={"input", "output", "cache_read", "cache_write", "total_tokens"}) == {
        "input": 7, "output": 150, "cache_read": 5800, "cache_write": 3100, "total_tokens": 9057}
    gateway, _ = await atomic_turn(server, fx.gateway_usage())
    assert (gateway.usage.input, gateway.usage.output) == (58, 2)


TOOL_SHAPES: dict[str, tuple[Callable[[], Reply], list[dict[str, Any]]]] = {
    "text-and-tool": (fx.text_and_tool, [
        {"type": "text", "text": "Let me check the weather."},
        {"type": "tool_use", "id": "toolu_fx_w1", "name": "weather", "input": {"location": "Florence"}}]),
    "parallel-tools-empty-input": (fx.parallel_tools_only, [
        {"type": "tool_use", "id": "toolu_fx_p1", "name": "pick_name", "input": {}},
        {"type": "tool_use", "id": "toolu_fx_p2", "name": "pick_name", "input": {}}]),
    "parallel-tools-with-text": (fx.parallel_tools_with_text, [
        {"type": "tool_use", "id": "toolu_fx_add", "name": "add", "input": {"a": 2, "b": 3}},
        {"type": "tool_use", "id": "toolu_fx_mul", "name": "multiply", "input": {"a": 2, "b": 3}}]),
    "thinking-tool-empty-input": (fx.thinking_then_tool_empty_input, [
        {"type": "thinking", "thinking": "Call the tool first.", "signature": fx.SIG_B},
        {"type": "tool_use", "id": "toolu_fx_v", "name": "version", "input": {}}]),
    "thinking-tool-use": (fx.thinking_then_tool, [
        {"type": "thinking", "thinking": "The user wants the weather.", "signature": fx.SIG_A},
        {"type": "tool_use", "id": "toolu_fx_t1", "name": "weather", "input": {"location": "Florence, Italy"}}]),
}


@pytest.mark.parametrize("shape", sorted(TOOL_SHAPES))
async def test_the_request_after_a_tool_call_is_accepted(server: ScriptedServer, shape: str) -> None:
    build, expected_assistant = TOOL_SHAPES[shape]
    first, _ = await atomic_turn(server, build())
    results = [ToolResultMessage(tool_call_id=c.id, tool_name=c.name, content=[TextContent(text=f"ok {c.name}")])
               for c in first.tool_calls()]
    history = [UserMessage(content="go"), first, *results]
    await atomic_turn(server, fx.final_text(), history)

    body = server.requests[-1].body
    assert request_problems(body) == []
    assert body["messages"][1] == {"role": "assistant", "content": expected_assistant}
    sent_results = body["messages"][2]["content"]
    assert [r["tool_use_id"] for r in sent_results] == [c.id for c in first.tool_calls()]
    assert all(r["content"][0]["text"].startswith("ok ") for r in sent_results)


@pytest.mark.parametrize("shape", ["code-execution-with-cache", "mcp-blocks", "web-search-citations",
                                   "compaction-block", "redacted-thinking"])
async def test_server_blocks_go_back_in_place_on_the_next_prompt(server: ScriptedServer, shape: str) -> None:
    build, _ = SHAPES[shape]
    first, _ = await atomic_turn(server, build())
    reference = await sdk_message(server, build())
    await atomic_turn(server, fx.final_text(), [UserMessage(content="hi"), first, UserMessage(content="more")])

    body = server.requests[-1].body
    assert request_problems(body) == []
    sent = body["messages"][1]["content"]
    # The SDK's blocks, minus the empty text blocks the API refuses and citations Atomic drops.
    expected = [_without_none({k: v for k, v in b.model_dump(exclude_none=True).items() if k != "citations"})
                for b in reference.content if not (b.type == "text" and not b.text)]
    assert [_without_none(b) for b in sent] == expected


async def test_kept_blocks_never_go_to_another_model(server: ScriptedServer) -> None:
    first, _ = await atomic_turn(server, fx.web_search())
    first.model = "another-model"
    await atomic_turn(server, fx.final_text(), [UserMessage(content="hi"), first, UserMessage(content="more")])
    body = server.requests[-1].body
    assert body["messages"][1]["content"] == [{"type": "text", "text": "It is sunny, 21 C."},
                                               {"type": "text", "text": " Enjoy."}]
    assert request_problems(body) == []


async def test_refusal_is_an_error_with_the_servers_explanation(server: ScriptedServer) -> None:
    reference = await sdk_message(server, fx.refusal())
    assert reference.stop_reason == "refusal" and reference.content == []
    with pytest.raises(ProviderError) as caught:
        await atomic_turn(server, fx.refusal())
    assert caught.value.kind == "refusal"
    assert caught.value.message == (
        "The model refused to answer this request (category: cyber): "
        "This request was blocked under the usage policy.")


async def test_overloaded_error_event_mid_stream_is_transient(server: ScriptedServer) -> None:
    import anthropic

    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):  # the SDK fails the same way
        await sdk_message(server, fx.overloaded_midway())
    with pytest.raises(ProviderError) as caught:
        await atomic_turn(server, fx.overloaded_midway())
    assert caught.value.kind == "transient"
    assert caught.value.message == "overloaded_error: Overloaded"


async def test_http_400_is_readable(server: ScriptedServer) -> None:
    server.replies.append(Reply(status=400, body=fx.HTTP_400_BODY))
    with pytest.raises(ProviderError) as caught:
        await atomic_turn(server, fx.final_text())
    assert caught.value.kind == "fatal" and caught.value.status == 400
    assert caught.value.message == (
        "400 invalid_request_error: This model does not support effort level 'xhigh'. (request id req_fx400)")


@pytest.mark.parametrize("bad", ["{not json", "[1, 2]", '{"type": "content_block_delta", "delta": {}}'])
async def test_undecodable_data_is_a_fatal_error(server: ScriptedServer, bad: str) -> None:
    reply = fx.plain_text()
    reply.events.insert(2, ("content_block_delta", bad))
    with pytest.raises(ProviderError) as caught:
        await atomic_turn(server, reply)
    assert caught.value.kind == "fatal"
    assert caught.value.message.startswith("Could not decode the server's stream")
