"""Requests with a stored Copilot login: each model over the wire it speaks there, Copilot's headers,
a token refreshed when it is due (also mid-session), and a refresh that fails."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.messages import AssistantMessage
from atomic.core.records import AuthStatus
from tests.logins.standins import GITHUB_TOKEN, StandInServer
from tests.logins.test_copilot_login import COPILOT_MODELS


def store_login(agent_dir: Path, server: StandInServer, *, expires: int, models: list[dict[str, Any]]) -> None:
    from atomic.core.oauth.github_copilot import model_from_listing

    entry = {"type": "oauth", "refresh": GITHUB_TOKEN, "access": "old-copilot-token", "expires": expires,
             "baseUrl": server.url, "models": [m for m in map(model_from_listing, models) if m]}
    (agent_dir / "auth.json").write_text(json.dumps({"github-copilot": entry}))


async def run(workdir: Path, model: str, *prompts: str) -> list[AssistantMessage]:
    session = await create_session(SessionOptions(cwd=workdir, provider="github-copilot", model=model,
                                                  no_session=True))
    try:
        for text in prompts:
            await session.prompt(text)
            await session.wait_idle()
        return [m for m in session.context_messages() if isinstance(m, AssistantMessage)]
    finally:
        await session.shutdown()


@pytest.mark.parametrize(("model", "path", "reply"), [
    ("gpt-4.1", "/chat/completions", "hello from copilot chat"),
    ("claude-sonnet-4.5", "/v1/messages", "hello from copilot claude"),
    ("gpt-5-mini", "/responses", "hello from copilot responses"),
])
async def test_each_model_goes_over_its_wire_with_copilot_headers(
    standin: StandInServer, agent_dir: Path, workdir: Path, model: str, path: str, reply: str
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) + 3_600_000, models=COPILOT_MODELS)
    [answer] = await run(workdir, model, "hi")
    assert answer.stop_reason == "stop", answer.error_message
    assert answer.text() == reply
    [request] = standin.state.requests_to(path)
    headers = request.headers
    assert headers["authorization"] == "Bearer old-copilot-token"
    assert "x-api-key" not in headers
    assert headers["copilot-integration-id"] == "vscode-chat" and headers["editor-version"].startswith("vscode/")
    assert headers["x-initiator"] == "user" and headers["openai-intent"] == "conversation-edits"
    assert request.body["model"] == model
    assert not standin.state.requests_to("/copilot_internal/v2/token")


async def test_an_expired_token_is_exchanged_again_before_the_request(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1000, models=COPILOT_MODELS)
    [answer] = await run(workdir, "gpt-4.1", "hi")
    assert answer.stop_reason == "stop", answer.error_message
    assert len(standin.state.requests_to("/copilot_internal/v2/token")) == 1
    [request] = standin.state.requests_to("/chat/completions")
    assert request.headers["authorization"] == f"Bearer {standin.state.copilot_token()}"
    stored = json.loads((agent_dir / "auth.json").read_text())["github-copilot"]
    assert stored["access"] == standin.state.copilot_token() and stored["refresh"] == GITHUB_TOKEN
    assert stored["models"], "the models list survives a refresh"


async def test_a_token_that_lapses_mid_session_is_refreshed_for_the_next_turn(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    # Each Copilot token lives 301 s: after the five-minute margin it is due one second later.
    standin.state.copilot_expires_in = 301
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1, models=COPILOT_MODELS)
    session = await create_session(SessionOptions(cwd=workdir, provider="github-copilot", model="gpt-4.1",
                                                  no_session=True))
    try:
        await session.prompt("first")
        await session.wait_idle()
        first_token = standin.state.copilot_token()
        # Let the token lapse.
        entry = json.loads((agent_dir / "auth.json").read_text())
        entry["github-copilot"]["expires"] = int(time.time() * 1000) - 1
        (agent_dir / "auth.json").write_text(json.dumps(entry))
        await session.prompt("second")
        await session.wait_idle()
    finally:
        await session.shutdown()
    first, second = standin.state.requests_to("/chat/completions")
    assert first.headers["authorization"] == f"Bearer {first_token}"
    assert second.headers["authorization"] == f"Bearer {standin.state.copilot_token()}"
    assert first_token != standin.state.copilot_token()


async def test_a_revoked_github_token_asks_for_a_new_login(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    standin.state.copilot_status = 401
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1000, models=COPILOT_MODELS)
    [answer] = await run(workdir, "gpt-4.1", "hi")
    assert answer.stop_reason == "error"
    assert "Log in again" in (answer.error_message or "") and "atomic --login github-copilot" in answer.error_message
    assert GITHUB_TOKEN not in answer.error_message
    assert not standin.state.requests_to("/chat/completions")
    # One try only: a refused token is not retried.
    assert len(standin.state.requests_to("/copilot_internal/v2/token")) == 1


def test_copilot_headers_say_who_started_the_turn_and_when_images_go() -> None:
    from atomic.core.messages import ImageContent, TextContent, ToolResultMessage, UserMessage
    from atomic.core.oauth.github_copilot import request_headers

    credential = {"access": "tok"}
    user_turn = request_headers(credential, [UserMessage(content="hi")])
    assert user_turn["X-Initiator"] == "user" and "Copilot-Vision-Request" not in user_turn
    assert user_turn["Authorization"] == "Bearer tok"
    after_tools = request_headers(credential, [
        UserMessage(content=[TextContent(text="look"), ImageContent(data="aGk=", mime_type="image/png")]),
        ToolResultMessage(tool_call_id="c1", tool_name="read", content=[TextContent(text="ok")]),
    ])
    assert after_tools["X-Initiator"] == "agent" and after_tools["Copilot-Vision-Request"] == "true"


def test_a_pi_shaped_login_entry_works_as_it_is(agent_dir: Path) -> None:
    """pi stores the same fields (no API address, no models list): the catalog's models and Copilot's
    default address are used then."""
    from atomic.core.auth import AuthStorage
    from atomic.core.models.registry import ModelRegistry

    (agent_dir / "auth.json").write_text(json.dumps({"github-copilot": {
        "type": "oauth", "refresh": "gho_x", "access": "tid=1", "expires": 1}}))
    registry = ModelRegistry(agent_dir, AuthStorage(agent_dir))
    models = [m for m in registry.available_models() if m.provider == "github-copilot"]
    assert models and all(m.base_url == "https://api.individual.githubcopilot.com" for m in models)
    assert registry.auth_status("github-copilot") == AuthStatus(configured=True, source="stored")
    assert registry.find("github-copilot", "claude-sonnet-4.5").api == "anthropic-messages"
