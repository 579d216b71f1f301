"""State, model, thinking-level, queue-mode and toggle commands over `atomic --mode rpc`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient

STATE_FIELDS = {
    "model", "thinkingLevel", "isStreaming", "isCompacting", "steeringMode", "followUpMode",
    "sessionFile", "sessionId", "autoCompactionEnabled", "messageCount", "pendingMessageCount",
    "permissionMode", "projectTrust", "todos", "sandbox",
}
MODEL_FIELDS = {"id", "name", "api", "provider", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost"}


def write_models_json(agent_dir: Path) -> None:
    """A second, authenticated (literal apiKey) non-reasoning model, so cycling and clamping can be seen."""
    config = {
        "providers": {
            "local": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "apiKey": "sk-local-test",
                "models": [{"id": "plain-model", "name": "Plain", "reasoning": False, "input": ["text"],
                            "contextWindow": 32000, "maxTokens": 4096}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config), encoding="utf-8")


async def test_get_state_fields(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"id": "st", "type": "get_state"})
    assert response["id"] == "st" and response["command"] == "get_state" and response["success"] is True
    state = response["data"]
    assert set(state) == STATE_FIELDS  # sessionName is omitted until set
    assert MODEL_FIELDS <= set(state["model"])
    assert state["model"]["provider"] == "scripted" and state["model"]["id"] == "scripted-model"
    assert state["isStreaming"] is False and state["isCompacting"] is False
    assert state["steeringMode"] == "one-at-a-time" and state["followUpMode"] == "one-at-a-time"
    assert state["autoCompactionEnabled"] is True
    assert state["messageCount"] == 0 and state["pendingMessageCount"] == 0
    assert state["sessionFile"].endswith(f"_{state['sessionId']}.jsonl")


async def test_get_state_while_streaming_and_message_count(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "stuck", "hang": True}])
    await client.prompt("hi")
    await client.wait_for("message_update")
    state = await client.get_state()
    assert state["isStreaming"] is True
    await client.abort()
    assert (await client.get_state())["messageCount"] == 2


async def test_get_state_without_session_omits_session_file(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "--no-session")
    state = await client.get_state()
    assert "sessionFile" not in state
    assert state["sessionId"]


async def test_session_name_set_and_reported(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"id": "n", "type": "set_session_name", "name": "my-feature-work"})
    assert response == {"id": "n", "type": "response", "command": "set_session_name", "success": True}
    assert (await client.get_state())["sessionName"] == "my-feature-work"
    empty = await client.request({"type": "set_session_name", "name": "  "})
    assert empty["success"] is False and empty["error"]
    assert (await client.get_state())["sessionName"] == "my-feature-work"


async def test_name_flag_sets_initial_session_name(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "--name", "from-flag")
    assert (await client.get_state())["sessionName"] == "from-flag"


async def test_get_messages_shape(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "answer"}])
    assert await client.call("get_messages") == {"messages": []}
    await client.run_prompt("question")
    messages = await client.get_messages()
    assert messages[0]["role"] == "user" and messages[0]["content"] == "question"
    assert isinstance(messages[0]["timestamp"], int)
    assistant = messages[1]
    assert assistant["role"] == "assistant"
    assert assistant["api"] == "scripted" and assistant["provider"] == "scripted"
    assert assistant["model"] == "scripted-model"
    assert assistant["stopReason"] == "stop"
    assert set(assistant["usage"]) >= {"input", "output", "cacheRead", "cacheWrite", "cost"}


async def test_get_last_assistant_text_null_then_text(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    assert await client.call("get_last_assistant_text") == {"text": None}
    await client.run_prompt("echo me")
    assert await client.call("get_last_assistant_text") == {"text": "You said: echo me"}


async def test_set_model_success_and_unknown(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    ok = await client.request({"type": "set_model", "provider": "scripted", "modelId": "scripted-model"})
    assert ok["success"] is True
    assert ok["data"]["id"] == "scripted-model" and MODEL_FIELDS <= set(ok["data"])
    bad = await client.request({"id": "m", "type": "set_model", "provider": "nope", "modelId": "missing"})
    assert bad == {"id": "m", "type": "response", "command": "set_model", "success": False,
                   "error": "Model not found: nope/missing"}
    missing_field = await client.request({"type": "set_model", "provider": "scripted"})
    assert missing_field["success"] is False and missing_field["command"] == "set_model"


async def test_cycle_model_null_with_one_model(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"type": "cycle_model"})
    assert response["success"] is True
    assert response["data"] is None


async def test_cycle_model_and_clamping_with_second_model(start_rpc: StartRpc, agent_dir: Path) -> None:
    write_models_json(agent_dir)
    client = await start_rpc()
    models = (await client.call("get_available_models"))["models"]
    keys = [(m["provider"], m["id"]) for m in models]
    assert ("local", "plain-model") in keys and ("scripted", "scripted-model") in keys
    assert all(MODEL_FIELDS <= set(m) for m in models)
    cycled = await client.call("cycle_model")
    assert set(cycled) == {"model", "thinkingLevel", "isScoped"}
    assert cycled["isScoped"] is False
    assert (cycled["model"]["provider"], cycled["model"]["id"]) != ("scripted", "scripted-model")
    await client.call("set_model", provider="local", modelId="plain-model")
    # A non-reasoning model supports only "off": a request for "high" is clamped.
    data = await client.call("set_thinking_level", level="high")
    assert data == {"level": "off", "provider": "local", "modelId": "plain-model"}
    assert await client.call("get_available_thinking_levels") == {"levels": ["off"]}
    assert await client.call("cycle_thinking_level") is None
    state = await client.get_state()
    assert state["thinkingLevel"] == "off" and state["model"]["id"] == "plain-model"


async def test_get_available_models_lists_scripted(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"type": "get_available_models"})
    assert response["success"] is True
    assert [(m["provider"], m["id"]) for m in response["data"]["models"]] == [("scripted", "scripted-model")]


async def test_logout_provider_shape(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    response = await client.request({"id": "lo", "type": "logout_provider", "provider": "github-copilot"})
    assert response["success"] is True and response["id"] == "lo"
    data = response["data"]
    assert data["provider"] == "github-copilot"
    assert data["authStatus"] == {"configured": False}
    assert isinstance(data["models"], list)
    assert all("id" in m and "provider" in m for m in data["models"])


async def test_set_thinking_level_data_and_invalid(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    data = await client.call("set_thinking_level", level="high")
    assert data == {"level": "high", "provider": "scripted", "modelId": "scripted-model"}
    assert (await client.get_state())["thinkingLevel"] == "high"
    changed = [e for e in client.events if e["type"] == "thinking_level_changed"]
    assert changed and changed[-1]["level"] == "high"
    bad = await client.request({"type": "set_thinking_level", "level": "extreme"})
    assert bad["success"] is False and bad["command"] == "set_thinking_level"
    assert (await client.get_state())["thinkingLevel"] == "high"


async def test_thinking_levels_list_and_cycle(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    levels = (await client.call("get_available_thinking_levels"))["levels"]
    # The scripted model reasons and opts in to xhigh and max.
    assert levels == ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
    await client.call("set_thinking_level", level="medium")
    assert await client.call("cycle_thinking_level") == {"level": "high"}
    assert await client.call("cycle_thinking_level") == {"level": "xhigh"}
    await client.call("set_thinking_level", level="max")
    assert await client.call("cycle_thinking_level") == {"level": "off"}
    assert (await client.get_state())["thinkingLevel"] == "off"


async def test_queue_modes_set_and_invalid(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    ok = await client.request({"id": "a", "type": "set_steering_mode", "mode": "all"})
    assert ok == {"id": "a", "type": "response", "command": "set_steering_mode", "success": True}
    ok = await client.request({"id": "b", "type": "set_follow_up_mode", "mode": "all"})
    assert ok == {"id": "b", "type": "response", "command": "set_follow_up_mode", "success": True}
    state = await client.get_state()
    assert state["steeringMode"] == "all" and state["followUpMode"] == "all"
    for command in ("set_steering_mode", "set_follow_up_mode"):
        bad = await client.request({"type": command, "mode": "sometimes"})
        assert bad["success"] is False and bad["command"] == command and bad["error"]
    state = await client.get_state()
    assert state["steeringMode"] == "all" and state["followUpMode"] == "all"


async def test_steering_mode_all_delivers_every_message_in_one_turn(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "slow reply here", "chunkSize": 2, "delayMs": 30}, {"text": "both seen"}])
    await client.call("set_steering_mode", mode="all")
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.steer("one")
    await client.steer("two")
    end = await client.wait_for("agent_end")
    roles = [m["role"] for m in end["messages"]]
    # Both steering messages arrive before a single next assistant turn.
    assert roles == ["user", "assistant", "user", "user", "assistant"]


async def test_steering_mode_one_at_a_time_delivers_one_per_turn(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"text": "slow reply here", "chunkSize": 2, "delayMs": 30}])
    await client.prompt("first")
    await client.wait_for("message_update")
    await client.steer("one")
    await client.steer("two")
    end = await client.wait_for("agent_end")
    roles = [m["role"] for m in end["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]


async def test_auto_compaction_and_retry_toggles(start_rpc: StartRpc) -> None:
    client = await start_rpc()
    for command in ("set_auto_compaction", "set_auto_retry"):
        response = await client.request({"id": command, "type": command, "enabled": False})
        assert response == {"id": command, "type": "response", "command": command, "success": True}
        bad = await client.request({"type": command})
        assert bad["success"] is False and bad["command"] == command
    assert (await client.get_state())["autoCompactionEnabled"] is False
    await client.call("set_auto_compaction", enabled=True)
    assert (await client.get_state())["autoCompactionEnabled"] is True


async def test_auto_retry_disabled_surfaces_transient_error(start_rpc: StartRpc) -> None:
    client = await start_rpc([{"error": "529 overloaded", "kind": "transient", "status": 529}])
    await client.call("set_auto_retry", enabled=False)
    end = await client.run_prompt("try")
    assert end["messages"][-1]["stopReason"] == "error"
    assert not [e for e in client.events if e["type"] == "auto_retry_start"]


async def test_auto_retry_final_failure(start_rpc: StartRpc, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 5, "maxRetries": 2}}))
    overloaded = {"error": "529 overloaded", "kind": "transient", "status": 529}
    client = await start_rpc([overloaded, overloaded, overloaded, {"text": "never reached"}])
    end = await client.run_prompt("keeps failing")
    starts = [e for e in client.events if e["type"] == "auto_retry_start"]
    assert [(s["attempt"], s["maxAttempts"]) for s in starts] == [(1, 2), (2, 2)]
    assert starts[1]["delayMs"] == 10  # exponential backoff from the base delay
    retry_end = [e for e in client.events if e["type"] == "auto_retry_end"]
    assert len(retry_end) == 1
    assert retry_end[0]["success"] is False and retry_end[0]["attempt"] == 2
    assert "529" in retry_end[0]["finalError"]
    assert end["messages"][-1]["stopReason"] == "error"


async def test_abort_retry_cancels_a_waiting_retry(start_rpc: StartRpc, agent_dir: Path) -> None:
    # A long base delay: without abort_retry the retry would wait for a minute.
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 60000}}), encoding="utf-8")
    client = await start_rpc([{"error": "529 overloaded", "kind": "transient", "status": 529}])
    await client.prompt("try")
    start = await client.wait_for("auto_retry_start")
    assert start["attempt"] == 1 and start["errorMessage"]
    response = await client.request({"id": "ar", "type": "abort_retry"})
    assert response == {"id": "ar", "type": "response", "command": "abort_retry", "success": True}
    retry_end = await client.wait_for("auto_retry_end", timeout=5)
    assert retry_end["success"] is False
    await client.wait_for("agent_end", timeout=5)
    # With nothing retrying, abort_retry is still a plain success.
    assert await client.call("abort_retry") is None


async def test_get_session_stats_shape(start_rpc: StartRpc) -> None:
    client = await start_rpc(
        [{"toolCalls": [{"name": "bash", "arguments": {"command": "true"}}], "usage": {"input": 100, "output": 7}},
         {"text": "done", "usage": {"input": 120, "output": 3}}]
    )
    await client.run_prompt("go")
    stats = await client.call("get_session_stats")
    state = await client.get_state()
    assert stats["sessionFile"] == state["sessionFile"] and stats["sessionId"] == state["sessionId"]
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 2
    assert stats["toolCalls"] == 1 and stats["toolResults"] == 1 and stats["totalMessages"] == 4
    assert stats["tokens"]["input"] == 220 and stats["tokens"]["output"] == 10
    assert stats["tokens"]["total"] == sum(stats["tokens"][k] for k in ("input", "output", "cacheRead", "cacheWrite"))
    assert isinstance(stats["cost"], int | float)
    usage = stats["contextUsage"]
    assert usage["contextWindow"] == 200000 and usage["tokens"] > 0 and usage["percent"] >= 0


async def test_get_commands_lists_prompt_templates(start_rpc: StartRpc, work_dir: Path) -> None:
    prompts = work_dir / ".atomic" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "fix-tests.md").write_text("---\ndescription: Fix failing tests\n---\nFix the tests.\n")
    client = await start_rpc(None, "--approve")  # project templates load only in a trusted folder
    commands = (await client.call("get_commands"))["commands"]
    fix = next(c for c in commands if c["name"] == "fix-tests")
    assert fix["source"] == "prompt" and fix["description"] == "Fix failing tests"
    assert fix["location"] == "project"
    assert Path(fix["path"]) == (prompts / "fix-tests.md").resolve()


async def test_set_model_and_thinking_persist_to_settings(start_rpc: StartRpc, agent_dir: Path) -> None:
    write_models_json(agent_dir)
    client = await start_rpc()
    await client.call("set_thinking_level", level="low", persist=True)
    settings = json.loads((agent_dir / "settings.json").read_text())
    assert settings["defaultThinkingLevel"] == "low"
    await client.call("set_model", provider="local", modelId="plain-model", persist=True)
    settings = json.loads((agent_dir / "settings.json").read_text())
    assert settings["defaultProvider"] == "local" and settings["defaultModel"] == "plain-model"
    assert settings["defaultThinkingLevel"] == "off"  # the effective (clamped) level


async def test_set_model_without_persist_leaves_settings_alone(start_rpc: StartRpc, agent_dir: Path) -> None:
    write_models_json(agent_dir)
    client = await start_rpc()
    await client.call("set_model", provider="local", modelId="plain-model")
    settings_file = agent_dir / "settings.json"
    assert not settings_file.exists() or "defaultModel" not in json.loads(settings_file.read_text())


async def test_get_commands_lists_skills(start_rpc: StartRpc, agent_dir: Path) -> None:
    skill = agent_dir / "skills" / "brave-search"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: brave-search\ndescription: Web search via Brave API\n---\nSearch.\n")
    client = await start_rpc()
    commands = (await client.call("get_commands"))["commands"]
    found = next(c for c in commands if c["name"] == "skill:brave-search")
    assert found["source"] == "skill" and found["location"] == "user"
    assert found["description"] == "Web search via Brave API"
    assert Path(found["path"]) == (skill / "SKILL.md").resolve()


async def test_prompt_template_is_expanded_before_sending(start_rpc: StartRpc, work_dir: Path) -> None:
    prompts = work_dir / ".atomic" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: Review\n---\nPlease review $1 carefully.\n")
    client = await start_rpc(None, "-a")
    await client.run_prompt("/review main.py")
    assert (await client.get_messages())[0]["content"].strip() == "Please review main.py carefully."


async def test_without_any_model_prompt_is_rejected_with_setup_help(
    work_dir: Path, rpc_env: dict[str, str]
) -> None:
    client = RecordingClient([], cwd=work_dir, env=rpc_env)  # no --provider, no keys, no models.json
    await client.start()
    try:
        state = await client.get_state()
        assert state["model"] is None
        response = await client.request({"id": "p", "type": "prompt", "message": "hi"})
        assert response["success"] is False and response["id"] == "p"
        assert "models.json" in response["error"] and "API key" in response["error"]
        assert (await client.get_state())["messageCount"] == 0
        # Nothing recorded yet: an empty session has no entries and a null leaf.
        assert await client.call("get_entries") == {"entries": [], "leafId": None}
        assert await client.call("get_tree") == {"tree": [], "leafId": None}
        assert "contextUsage" not in await client.call("get_session_stats")
    finally:
        assert await client.close() == 0
