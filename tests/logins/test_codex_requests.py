"""Requests over the ChatGPT Codex endpoint (`openai-codex-responses`) with a stored ChatGPT login: the
endpoint's URL, headers and body, a tool turn and the next request, the token refreshed when due,
the subscription's usage limit, and a refresh that fails."""

from __future__ import annotations

import json
import time
from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.messages import AssistantMessage
from tests.logins.standins import ACCOUNT_ID, StandInServer, chatgpt_access_token, responses_tool_call


def store_login(agent_dir: Path, server: StandInServer, *, expires: int) -> None:
    server.state.refresh_tokens.add("rt-stored")
    entry = {"type": "oauth", "access": chatgpt_access_token(0), "refresh": "rt-stored", "expires": expires,
             "accountId": ACCOUNT_ID}
    (agent_dir / "auth.json").write_text(json.dumps({"openai-codex": entry}))
    # The models.json base URL replaces the host, as for every provider.
    (agent_dir / "models.json").write_text(json.dumps(
        {"providers": {"openai-codex": {"baseUrl": f"{server.url}/backend-api"}}}))


async def run(workdir: Path, *prompts: str) -> list[AssistantMessage]:
    session = await create_session(SessionOptions(cwd=workdir, provider="openai-codex", model="gpt-5.4",
                                                  no_session=True))
    try:
        for text in prompts:
            await session.prompt(text)
            await session.wait_idle()
        return [m for m in session.context_messages() if isinstance(m, AssistantMessage)]
    finally:
        await session.shutdown()


async def test_a_tool_turn_and_the_next_request_over_the_codex_endpoint(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) + 3_600_000)
    standin.state.codex_replies = [responses_tool_call("call_1", "bash", {"command": "echo from-tool"})]
    first, second = await run(workdir, "run echo")
    assert first.stop_reason == "toolUse" and second.text() == "hello from chatgpt", second.error_message
    one, two = standin.state.requests_to("/backend-api/codex/responses")
    headers = one.headers
    assert headers["authorization"] == f"Bearer {chatgpt_access_token(0)}"
    assert headers["chatgpt-account-id"] == ACCOUNT_ID
    assert headers["openai-beta"] == "responses=experimental" and headers["originator"] == "atomic"
    assert headers["accept"] == "text/event-stream" and headers["session_id"]
    body = one.body
    assert body["model"] == "gpt-5.4" and body["store"] is False and body["stream"] is True
    assert "max_output_tokens" not in body and body["instructions"]
    assert body["include"] == ["reasoning.encrypted_content"] and body["parallel_tool_calls"] is True
    assert body["prompt_cache_key"] == headers["session_id"]
    # The next request carries the call and its output back.
    calls = [i for i in two.body["input"] if i.get("type") == "function_call"]
    outputs = [i for i in two.body["input"] if i.get("type") == "function_call_output"]
    assert calls[0]["call_id"] == "call_1" and outputs[0]["call_id"] == "call_1"
    assert "from-tool" in outputs[0]["output"]


async def test_an_expired_login_is_refreshed_and_stored_before_the_request(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1)
    [answer] = await run(workdir, "hi")
    assert answer.text() == "hello from chatgpt", answer.error_message
    [request] = standin.state.requests_to("/backend-api/codex/responses")
    assert request.headers["authorization"] == f"Bearer {chatgpt_access_token(1)}"
    stored = json.loads((agent_dir / "auth.json").read_text())["openai-codex"]
    assert stored["refresh"] == "rt-standin-1" and stored["access"] == chatgpt_access_token(1)
    assert (agent_dir / "auth.json").stat().st_mode & 0o777 == 0o600


async def test_a_failed_refresh_says_to_log_in_again(standin: StandInServer, agent_dir: Path, workdir: Path) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) - 1)
    standin.state.token_status = 400
    [answer] = await run(workdir, "hi")
    assert answer.stop_reason == "error"
    assert "ChatGPT login can no longer be used" in (answer.error_message or "")
    assert "/login" in answer.error_message and "rt-stored" not in answer.error_message
    assert not standin.state.requests_to("/backend-api/codex/responses")
    # The stored login is kept as it was: the person decides when to log in again.
    assert json.loads((agent_dir / "auth.json").read_text())["openai-codex"]["refresh"] == "rt-stored"


async def test_the_usage_limit_is_said_plainly_and_not_retried(
    standin: StandInServer, agent_dir: Path, workdir: Path
) -> None:
    store_login(agent_dir, standin, expires=int(time.time() * 1000) + 3_600_000)
    standin.state.codex_status = 429
    standin.state.codex_error = {"error": {"type": "usage_limit_reached", "code": "usage_limit_reached",
                                           "message": "The usage limit has been reached", "plan_type": "plus",
                                           "resets_in_seconds": 1800}}
    [answer] = await run(workdir, "hi")
    assert answer.stop_reason == "error"
    assert "usage limit (plus)" in (answer.error_message or "") and "30 min" in answer.error_message
    assert len(standin.state.requests_to("/backend-api/codex/responses")) == 1
