"""`atomic --mode acp` end to end through the ACP SDK's client: initialize, new, prompt, updates."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block
from acp.exceptions import RequestError

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


async def test_initialize_announces_version_info_and_capabilities(acp_env: dict[str, str],
                                                                  write_script: ScriptWriter) -> None:
    async with acp_agent(acp_env, write_script([])) as (conn, _client, _process):
        response = await conn.initialize(protocol_version=1)
    assert response.protocol_version == 1
    assert response.agent_info.name == "atomic" and response.agent_info.title == "Atomic"
    caps = response.agent_capabilities
    assert caps.load_session is True
    assert caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
    assert caps.mcp_capabilities.http is True
    assert caps.session_capabilities.list is not None and caps.session_capabilities.close is not None
    # The scripted model needs no key, so no login is offered.
    assert response.auth_methods == []


async def test_prompt_streams_thinking_text_and_answers_end_turn(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"thinking": "Let me think.", "text": "Hello from Atomic."}])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        ids = {o.id: o for o in session.config_options}
        assert ids["model"].category == "model" and ids["model"].current_value == "scripted/scripted-model"
        assert ids["thought_level"].category == "thought_level"
        assert ids["mode"].category == "mode" and ids["mode"].current_value == "ask"
        assert [m.id for m in session.modes.available_modes] == ["ask", "accept-edits", "yolo", "plan"]
        assert session.modes.current_mode_id == "ask"
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert response.stop_reason == "end_turn"
    assert client.text("agent_thought_chunk") == "Let me think."
    assert client.text() == "Hello from Atomic."
    commands = client.of_kind("available_commands_update")[0].available_commands
    assert "compact" in [c.name for c in commands]
    assert client.of_kind("usage_update")


async def test_unknown_session_is_an_error(acp_env: dict[str, str], write_script: ScriptWriter) -> None:
    async with acp_agent(acp_env, write_script([])) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        with pytest.raises(RequestError):
            await conn.prompt(session_id="nope", prompt=[text_block("hi")])


async def test_without_any_key_a_terminal_login_is_offered(acp_env: dict[str, str],
                                                           write_script: ScriptWriter) -> None:
    async with acp_agent(acp_env, write_script([]), scripted=False) as (conn, _client, _process):
        response = await conn.initialize(protocol_version=1)
    method, copilot, chatgpt = response.auth_methods
    assert method.type == "terminal" and method.id == "atomic-login"
    # The subscription logins run in the client's terminal, as `atomic --login <provider>`.
    assert (copilot.id, copilot.type, copilot.args) == ("login-github-copilot", "terminal", ["--login", "github-copilot"])
    assert (chatgpt.id, chatgpt.args) == ("login-openai-codex", ["--login", "openai-codex"])


async def test_naming_the_session_sends_session_info(acp_env: dict[str, str], write_script: ScriptWriter,
                                                     project: Path) -> None:
    async with acp_agent(acp_env, write_script([])) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("/name Fix the parser")])
        assert response.stop_reason == "end_turn"
    assert [u.title for u in client.of_kind("session_info_update")] == ["Fix the parser"]
