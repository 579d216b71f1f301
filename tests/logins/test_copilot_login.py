"""GitHub Copilot: the device flow, the token exchange, the models list and refreshes, against local
stand-ins of GitHub's and Copilot's servers."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from atomic.core.auth import AuthStorage
from atomic.core.oauth import LoginCancelled, LoginError, run_login
from tests.logins.conftest import ScriptedPrompts
from tests.logins.standins import GITHUB_TOKEN, StandInServer

COPILOT_MODELS = [
    {"id": "claude-sonnet-4.5", "name": "Claude Sonnet 4.5", "model_picker_enabled": True, "vendor": "Anthropic",
     "policy": {"state": "unconfigured"}, "supported_endpoints": ["/chat/completions", "/v1/messages"],
     "capabilities": {"type": "chat", "limits": {"max_context_window_tokens": 144000, "max_output_tokens": 16000},
                      "supports": {"vision": True, "tool_calls": True, "max_thinking_budget": 32000}}},
    {"id": "gpt-5-mini", "name": "GPT-5 mini", "model_picker_enabled": True, "policy": {"state": "enabled"},
     "supported_endpoints": ["/chat/completions", "/responses"],
     "capabilities": {"type": "chat", "limits": {"max_context_window_tokens": 264000, "max_output_tokens": 64000},
                      "supports": {"tool_calls": True, "reasoning_effort": ["low", "medium", "high"]}}},
    {"id": "gpt-4.1", "name": "GPT-4.1", "model_picker_enabled": True,
     "capabilities": {"type": "chat", "limits": {"max_context_window_tokens": 128000, "max_output_tokens": 16384},
                      "supports": {"tool_calls": True}}},
    {"id": "text-embedding-3-small", "capabilities": {"type": "embeddings"}},
    {"id": "gpt-4o-mini-hidden", "model_picker_enabled": False, "capabilities": {"type": "chat"}},
]


async def test_device_flow_stores_the_github_token_and_a_copilot_token(
    standin: StandInServer, prompts: ScriptedPrompts, agent_dir: Path
) -> None:
    standin.state.device_polls = [{"error": "authorization_pending"}, {"error": "slow_down", "interval": 0},
                                  {"error": "authorization_pending"}]
    standin.state.models = COPILOT_MODELS
    auth = AuthStorage(agent_dir)
    await run_login(auth, "github-copilot", prompts)

    text, url, code = prompts.shown[0]
    assert code == "ABCD-1234" and url == "https://github.com/login/device" and "ABCD-1234" in text
    polls = standin.state.requests_to("/login/oauth/access_token")
    assert len(polls) == 4
    assert polls[0].body == {"client_id": "Iv1.b507a08c87ecfe98", "device_code": "dev-123",
                             "grant_type": "urn:ietf:params:oauth:grant-type:device_code"}
    exchange = standin.state.requests_to("/copilot_internal/v2/token")[0]
    assert exchange.headers["authorization"] == f"Bearer {GITHUB_TOKEN}"
    assert exchange.headers["editor-version"].startswith("vscode/")
    stored = json.loads((agent_dir / "auth.json").read_text())["github-copilot"]
    assert stored["type"] == "oauth" and stored["refresh"] == GITHUB_TOKEN
    assert stored["access"] == standin.state.copilot_token() and stored["baseUrl"] == standin.url
    # expires_at less five minutes, in milliseconds
    assert abs(stored["expires"] - (time.time() + 1800 - 300) * 1000) < 5000
    listed = {m["id"]: m for m in stored["models"]}
    assert set(listed) == {"claude-sonnet-4.5", "gpt-5-mini", "gpt-4.1"}
    assert listed["claude-sonnet-4.5"]["api"] == "anthropic-messages"
    assert listed["claude-sonnet-4.5"]["input"] == ["text", "image"]
    assert listed["gpt-5-mini"]["api"] == "openai-responses" and listed["gpt-5-mini"]["reasoning"] is True
    assert listed["gpt-4.1"]["api"] == "openai-completions" and listed["gpt-4.1"]["contextWindow"] == 128000
    # The Claude model started switched off and was enabled the way the editors do it.
    assert [s.path for s in standin.state.seen if s.path.endswith("/policy")] == ["/models/claude-sonnet-4.5/policy"]
    assert (agent_dir / "auth.json").stat().st_mode & 0o777 == 0o600


async def test_a_refused_login_is_a_cancel_and_stores_nothing(
    standin: StandInServer, prompts: ScriptedPrompts, agent_dir: Path
) -> None:
    standin.state.device_polls = [{"error": "access_denied", "error_description": "The user denied"}]
    with pytest.raises(LoginCancelled):
        await run_login(AuthStorage(agent_dir), "github-copilot", prompts)
    assert not (agent_dir / "auth.json").exists()


async def test_an_expired_code_says_so(standin: StandInServer, prompts: ScriptedPrompts, agent_dir: Path) -> None:
    standin.state.device_polls = [{"error": "expired_token"}]
    with pytest.raises(LoginError, match="expired"):
        await run_login(AuthStorage(agent_dir), "github-copilot", prompts)


async def test_cancelling_while_polling_stores_nothing(
    standin: StandInServer, prompts: ScriptedPrompts, agent_dir: Path
) -> None:
    standin.state.device_polls = [{"error": "authorization_pending"}] * 100_000
    task = asyncio.create_task(run_login(AuthStorage(agent_dir), "github-copilot", prompts))
    while len(standin.state.requests_to("/login/oauth/access_token")) < 3:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not (agent_dir / "auth.json").exists()


async def test_no_copilot_on_the_account_means_a_clear_error(
    standin: StandInServer, prompts: ScriptedPrompts, agent_dir: Path
) -> None:
    standin.state.copilot_status = 404
    with pytest.raises(LoginError, match="no Copilot"):
        await run_login(AuthStorage(agent_dir), "github-copilot", prompts)
    assert not (agent_dir / "auth.json").exists()
