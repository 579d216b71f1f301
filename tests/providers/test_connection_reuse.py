"""Every provider's turns share one connection pool per event loop and keep their connection across
turns; the provider warm-up runs in a thread and is awaited without blocking the event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from atomic.core.providers import http, registry, warmup
from atomic.core.providers.anthropic_messages import AnthropicMessagesProvider
from atomic.core.providers.base import TextDelta
from atomic.core.providers.openai_completions import OpenAICompletionsProvider
from atomic.core.providers.openai_responses import OpenAIResponsesProvider
from tests.providers.conftest import collect, make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer


def completions_reply(text: str) -> Reply:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return Reply(events=[
        (None, dict(base, choices=[{"index": 0, "delta": {"content": text}, "finish_reason": None}])),
        (None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": "stop"}])),
        (None, "[DONE]"),
    ])


def responses_reply(text: str) -> Reply:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}
    done = dict(item, status="completed", content=[{"type": "output_text", "text": text, "annotations": []}])
    return Reply(events=[
        ("response.created", {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg_1",
                                        "output_index": 0, "content_index": 0, "delta": text}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": done}),
        ("response.completed", {"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
    ])


def anthropic_reply(text: str) -> Reply:
    return Reply(events=[
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def texts(events: list[Any]) -> str:
    return "".join(e.delta for e in events if isinstance(e, TextDelta))


async def test_completions_reuse_one_pool_and_one_connection(server: ScriptedServer) -> None:
    provider = OpenAICompletionsProvider()
    model = make_model(server.url, api="openai-completions")
    server.replies += [completions_reply("one"), completions_reply("two"), completions_reply("three")]
    assert texts(await collect(provider, make_request(model))) == "one"
    pool = http.http_pool()
    assert texts(await collect(provider, make_request(model))) == "two"
    first, second = server.requests[0], server.requests[1]
    assert first.client_port == second.client_port  # the second turn reused the open connection
    # Another key is only another auth header, on the same pool and connection.
    assert texts(await collect(provider, make_request(model, api_key="sk-other"))) == "three"
    assert server.requests[2].headers["authorization"] == "Bearer sk-other"
    assert server.requests[2].client_port == first.client_port
    assert http.http_pool() is pool


async def test_responses_reuse_the_connection_and_share_the_pool_with_completions(server: ScriptedServer) -> None:
    server.replies += [completions_reply("one"), responses_reply("two"), responses_reply("three")]
    completions = make_model(server.url, api="openai-completions")
    responses = make_model(server.url, api="openai-responses")
    assert texts(await collect(OpenAICompletionsProvider(), make_request(completions))) == "one"
    assert texts(await collect(OpenAIResponsesProvider(), make_request(responses))) == "two"
    assert texts(await collect(OpenAIResponsesProvider(), make_request(responses))) == "three"
    assert len({request.client_port for request in server.requests}) == 1


async def test_anthropic_reuses_its_connection(server: ScriptedServer) -> None:
    provider = AnthropicMessagesProvider()
    model = make_model(server.url)
    server.replies += [anthropic_reply("a"), anthropic_reply("b")]
    assert texts(await collect(provider, make_request(model))) == "a"
    assert texts(await collect(provider, make_request(model))) == "b"
    assert server.requests[0].client_port == server.requests[1].client_port


async def test_waiting_for_the_warm_up_never_blocks_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    loaded: list[str] = []

    def slow_import() -> None:
        release.wait(10)  # stands in for a multi-second SDK import
        loaded.append("sdk")

    monkeypatch.setitem(registry.APIS, "slow-api", registry.ApiSpec(registry.APIS["openai-responses"].create, slow_import, None))
    monkeypatch.setattr(warmup, "_warmups", {})
    waiter = asyncio.ensure_future(registry.ensure_provider_ready("slow-api"))
    ticks = 0
    for _ in range(5):  # the loop keeps serving while the warm-up thread is busy
        await asyncio.sleep(0)
        ticks += 1
    assert ticks == 5 and not waiter.done() and loaded == []
    release.set()
    await asyncio.wait_for(waiter, 10)
    assert loaded == ["sdk"]
    # A second wait (another prompt) does not run the warm-up again.
    await registry.ensure_provider_ready("slow-api")
    assert loaded == ["sdk"]


async def test_a_failed_warm_up_leaves_the_error_to_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> None:
        raise ImportError("no such SDK")

    monkeypatch.setitem(registry.APIS, "broken-api", registry.ApiSpec(registry.APIS["openai-responses"].create, broken, None))
    monkeypatch.setattr(warmup, "_warmups", {})
    await asyncio.wait_for(registry.ensure_provider_ready("broken-api"), 10)  # returns; does not raise


async def test_warm_up_starts_for_the_configured_provider_only(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(warmup, "start_warmup", lambda api, warm: started.append(api))
    registry.start_provider_warmup("openai-responses")
    registry.start_provider_warmup("scripted")  # not a built-in SDK provider: nothing to load
    assert started == ["openai-responses"]


def test_the_warm_up_also_builds_the_turn_models_validators() -> None:
    """The first prompt no longer builds the message and event validators on the loop: the warm-up
    thread has (checked in a fresh interpreter, where nothing has used them yet)."""
    import subprocess
    import sys

    code = (
        "from atomic.core import events, messages\n"
        "from atomic.core.providers.registry import warm_turn_models\n"
        "models = [messages.UserMessage, messages.AssistantMessage, events.MessageUpdate, events.AgentEnd]\n"
        "before = [m.__pydantic_complete__ for m in models]\n"
        "warm_turn_models()\n"
        "print(before, [m.__pydantic_complete__ for m in models])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[False, False, False, False] [True, True, True, True]"
