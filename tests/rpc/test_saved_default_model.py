"""A saved default model that cannot be used blocks prompts; it never falls back to another model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.rpc.helpers import RecordingClient
from tests.rpc.test_state_and_models import write_models_json

BLOCKED = "Configured default model is unavailable or unsupported"
StartPlain = Callable[..., Awaitable[RecordingClient]]


def save_default(agent_dir: Path, provider: str, model_id: str) -> None:
    (agent_dir / "settings.json").write_text(
        json.dumps({"defaultProvider": provider, "defaultModel": model_id}), encoding="utf-8"
    )


@pytest.fixture
async def start_plain(
    work_dir: Path, rpc_env: dict[str, str], write_script: Callable[[list[dict[str, Any]]], Path]
) -> AsyncIterator[StartPlain]:
    """`atomic --mode rpc` without --provider/--model: the saved default decides the model. The scripted
    model is still known (ATOMIC_SCRIPT), so set_model can pick it."""
    clients: list[RecordingClient] = []

    async def start(*args: str) -> RecordingClient:
        env = dict(rpc_env)
        env["ATOMIC_SCRIPT"] = str(write_script([{"text": "answered"}]))
        client = RecordingClient(list(args), cwd=work_dir, env=env)
        clients.append(client)
        await client.start()
        return client

    yield start
    for client in clients:
        await client.close()


async def assert_prompt_blocked(client: RecordingClient) -> str:
    response = await client.request({"type": "prompt", "message": "hello"})
    assert response["success"] is False
    assert response["error"].startswith(BLOCKED)
    state = await client.get_state()
    assert state["isStreaming"] is False and state["messageCount"] == 0
    assert not [e for e in client.events if e["type"] == "agent_start"]
    return str(response["error"])


async def test_unknown_saved_provider_blocks_prompts_until_set_model(
    start_plain: StartPlain, isolated_home: Path
) -> None:
    # Another usable model exists (local, with a literal key): today it was silently picked instead.
    write_models_json(isolated_home)
    save_default(isolated_home, "vanished-provider", "vanished-model")
    client = await start_plain()
    state = await client.get_state()
    assert state["model"] is None
    assert state["modelFallbackMessage"].startswith(BLOCKED)
    assert "vanished-provider/vanished-model" in state["modelFallbackMessage"]
    assert state["modelFallbackReason"] == "configured-provider-unsupported"
    error = await assert_prompt_blocked(client)
    assert error == state["modelFallbackMessage"]
    # steer and follow_up would start a run as well.
    assert (await client.request({"type": "steer", "message": "x"}))["success"] is False
    assert (await client.request({"type": "follow_up", "message": "x"}))["success"] is False

    failed = await client.request({"type": "set_model", "provider": "nobody", "modelId": "nothing"})
    assert failed["success"] is False
    assert (await client.get_state())["modelFallbackReason"] == "configured-provider-unsupported"

    await client.call("set_model", provider="scripted", modelId="scripted-model")
    state = await client.get_state()
    assert "modelFallbackMessage" not in state and "modelFallbackReason" not in state
    assert state["model"]["id"] == "scripted-model"
    await client.run_prompt("now it works")
    assert await client.get_last_assistant_text() == "answered"


async def test_saved_model_without_credentials_blocks_and_cycle_model_clears_it(
    start_plain: StartPlain, isolated_home: Path
) -> None:
    write_models_json(isolated_home)
    save_default(isolated_home, "anthropic", "claude-sonnet-4-5")  # a known model, but no API key
    client = await start_plain()
    state = await client.get_state()
    assert state["model"] is None and state["modelFallbackReason"] == "configured-model-unavailable"
    assert "anthropic/claude-sonnet-4-5" in state["modelFallbackMessage"]
    await assert_prompt_blocked(client)
    cycled = await client.call("cycle_model")
    assert cycled is not None
    state = await client.get_state()
    assert "modelFallbackMessage" not in state
    assert state["model"]["id"] == cycled["model"]["id"]


async def test_unknown_model_of_a_known_provider_is_unsupported(start_plain: StartPlain, isolated_home: Path) -> None:
    save_default(isolated_home, "anthropic", "claude-that-never-was")
    client = await start_plain()
    state = await client.get_state()
    assert state["model"] is None and state["modelFallbackReason"] == "configured-model-unsupported"
    await assert_prompt_blocked(client)


async def test_a_null_cycle_does_not_clear_the_block(start_plain: StartPlain, isolated_home: Path) -> None:
    # Only the scripted model is usable: fewer than two models, so cycle_model answers null.
    save_default(isolated_home, "vanished-provider", "vanished-model")
    client = await start_plain()
    assert await client.call("cycle_model") is None
    assert (await client.get_state())["modelFallbackReason"] == "configured-provider-unsupported"
    await assert_prompt_blocked(client)


async def test_usable_saved_default_is_used_and_not_blocked(start_plain: StartPlain, isolated_home: Path) -> None:
    write_models_json(isolated_home)
    save_default(isolated_home, "local", "plain-model")
    client = await start_plain()
    state = await client.get_state()
    assert state["model"]["provider"] == "local" and state["model"]["id"] == "plain-model"
    assert "modelFallbackMessage" not in state


async def test_an_explicit_model_on_the_command_line_is_not_blocked(
    start_plain: StartPlain, isolated_home: Path
) -> None:
    save_default(isolated_home, "vanished-provider", "vanished-model")
    client = await start_plain("--provider", "scripted")
    state = await client.get_state()
    assert state["model"]["id"] == "scripted-model" and "modelFallbackMessage" not in state
    await client.run_prompt("fine")
