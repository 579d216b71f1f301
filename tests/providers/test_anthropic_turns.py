"""Whole runs of the engine against a local Anthropic Messages server: pause_turn continuation,
refusal, a mid-stream overload retried, undecodable data, and images for a text-only model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.messages import ImageContent
from tests.providers import anthropic_fixtures as fx
from tests.providers.anthropic_checks import request_problems
from tests.providers.sse_server import Reply, ScriptedServer

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture
async def open_session(server: ScriptedServer, agent_dir: Path, tmp_path: Path
                       ) -> AsyncIterator[Callable[..., Any]]:
    sessions: list[AgentSession] = []

    async def factory(api: str = "anthropic-messages", inputs: list[str] | None = None
                      ) -> tuple[AgentSession, list[dict[str, Any]]]:
        base = server.url if api == "anthropic-messages" else f"{server.url}/v1"
        model = {"id": "claude-test", "reasoning": True, "contextWindow": 200000, "maxTokens": 8192,
                 "input": inputs or ["text", "image"]}
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"local": {
            "baseUrl": base, "api": api, "apiKey": "sk-test", "models": [model]}}}))
        (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 1}}))
        cwd = tmp_path / "project"
        cwd.mkdir(exist_ok=True)
        session = await create_session(SessionOptions(cwd=cwd, provider="local", model="claude-test"))
        sessions.append(session)
        events: list[dict[str, Any]] = []
        session.subscribe(lambda e: events.append(e.to_wire()))
        return session, events

    yield factory
    for session in sessions:
        await session.shutdown()


async def run(session: AgentSession, text: str, images: list[ImageContent] | None = None) -> None:
    await session.prompt(text, images=images)
    await session.wait_idle()


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


async def test_pause_turn_is_continued_with_the_paused_content(server: ScriptedServer, open_session: Any) -> None:
    server.replies += [fx.paused_search(), fx.continued_search(), fx.final_text("Sure.")]
    session, events = await open_session()
    await run(session, "search twice")

    assert len(server.requests) == 2
    ends = [e["message"] for e in of(events, "message_end") if e["message"]["role"] == "assistant"]
    assert [m["stopReason"] for m in ends] == ["stop", "stop"]
    assert [b["type"] for b in ends[0]["content"]] == ["thinking", "text"]
    assert [k["data"]["type"] for k in ends[0]["providerBlocks"]] == [
        "server_tool_use", "web_search_tool_result", "server_tool_use"]
    assert ends[1]["content"][-1]["text"] == "Both searches are done."
    assert len(of(events, "agent_end")) == 1

    # The continuation resends the conversation ending with the paused assistant turn, as it was.
    continuation = server.requests[1].body
    assert request_problems(continuation, continuing=True) == []
    last = continuation["messages"][-1]
    assert last["role"] == "assistant"
    assert [b["type"] for b in last["content"]] == [
        "thinking", "server_tool_use", "web_search_tool_result", "server_tool_use"]
    assert last["content"][-1]["id"] == "srvtoolu_fxp2" and last["content"][-1]["input"] == {"query": "second"}

    # The next prompt sends the paused turn and its continuation as one assistant turn.
    await run(session, "thanks")
    follow_up = server.requests[2].body
    assert request_problems(follow_up) == []
    assert [m["role"] for m in follow_up["messages"]] == ["user", "assistant", "user"]
    assert [b.get("tool_use_id") or b.get("id") for b in follow_up["messages"][1]["content"]
            if "id" in b or "tool_use_id" in b] == ["srvtoolu_fxp1", "srvtoolu_fxp1", "srvtoolu_fxp2", "srvtoolu_fxp2"]


async def test_a_paused_turn_left_unfinished_does_not_break_the_next_request(
    server: ScriptedServer, open_session: Any
) -> None:
    server.replies += [fx.paused_search(), Reply(status=400, body=fx.HTTP_400_BODY), fx.final_text()]
    session, events = await open_session()
    await run(session, "search")
    assert of(events, "message_end")[-1]["message"]["stopReason"] == "error"
    await run(session, "try again")
    body = server.requests[2].body
    # The search call that never got its result is left out, with nothing else lost.
    assert request_problems(body) == []
    assert [b.get("id") for b in body["messages"][1]["content"] if b["type"] == "server_tool_use"] == ["srvtoolu_fxp1"]


async def test_refusal_reaches_the_user_as_an_error_and_the_run_ends(server: ScriptedServer, open_session: Any) -> None:
    server.replies += [fx.refusal(), fx.final_text()]
    session, events = await open_session()
    await run(session, "something risky")
    end = of(events, "message_end")[-1]["message"]
    assert end["stopReason"] == "error"
    assert end["errorMessage"].startswith("The model refused to answer this request (category: cyber)")
    assert "errorKind" not in end  # the kind stays in the engine: the wire keeps its bytes
    assert of(events, "auto_retry_start") == []  # a refusal is not retried
    assert len(of(events, "agent_end")) == 1
    await run(session, "something else")
    # The refused turn is not sent again.
    assert [m["role"] for m in server.requests[1].body["messages"]] == ["user", "user"]


async def test_overloaded_mid_stream_is_retried(server: ScriptedServer, open_session: Any) -> None:
    server.replies += [fx.overloaded_midway(), fx.text_thinking_text()]
    session, events = await open_session()
    await run(session, "hello")
    assert [e["errorMessage"] for e in of(events, "auto_retry_start")] == ["overloaded_error: Overloaded"]
    assert of(events, "auto_retry_end")[-1]["success"] is True
    final = of(events, "message_end")[-1]["message"]
    assert final["stopReason"] == "stop" and final["content"][-1]["text"] == "1. Pouch\n2. Beaky"
    assert len(server.requests) == 2


async def test_undecodable_stream_ends_the_turn_with_message_end_and_agent_end(
    server: ScriptedServer, open_session: Any
) -> None:
    reply = fx.plain_text()
    reply.events.insert(3, ("content_block_delta", "{\"type\": \"content_block_delta\", broken"))
    server.replies.append(reply)
    session, events = await open_session()
    await run(session, "hello")
    end = of(events, "message_end")[-1]["message"]
    assert end["stopReason"] == "error" and "Could not decode the server's stream" in end["errorMessage"]
    kinds = [e["type"] for e in events]
    assert kinds[kinds.index("message_end", kinds.index("message_start", 4)):][:3] == [
        "message_end", "turn_end", "agent_end"]
    assert len(server.requests) == 1  # not retried


def _completions_reply() -> Reply:
    base = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "claude-test"}
    return Reply(events=[
        (None, {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Seen."},
                                     "finish_reason": None}]}),
        (None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        (None, "[DONE]")])


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions"])
async def test_images_are_never_sent_to_a_text_only_model(
    server: ScriptedServer, open_session: Any, api: str
) -> None:
    reply = fx.final_text if api == "anthropic-messages" else _completions_reply
    server.replies += [reply(), reply()]
    session, events = await open_session(api, inputs=["text"])
    image = ImageContent(data=PNG, mime_type="image/png")
    await run(session, "what is this?", images=[image])
    await run(session, "and this?", images=[image])

    sent = [json.dumps(r.body) for r in server.requests]
    assert all(PNG not in raw for raw in sent)
    # Each image becomes the note: one in the first request, the first prompt's again plus one in the second.
    assert [raw.count("(image omitted: model does not support images)") for raw in sent] == [1, 2]
    notices = of(events, "extension_ui_request")
    assert len(notices) == 1  # told once
    assert notices[0]["method"] == "notify" and notices[0]["notifyType"] == "warning"
    assert "does not support images" in notices[0]["message"]
    # The session keeps the images.
    users = [m for m in session.context_messages() if m.role == "user"]
    assert all(isinstance(m.content, list) and m.content[1] == image for m in users)


async def test_images_go_to_a_model_that_accepts_them(server: ScriptedServer, open_session: Any) -> None:
    server.replies.append(fx.final_text())
    session, events = await open_session()
    await run(session, "what is this?", images=[ImageContent(data=PNG, mime_type="image/png")])
    assert PNG in json.dumps(server.requests[0].body)
    assert of(events, "extension_ui_request") == []
