"""MCP servers given in ACP `session/new` start with the session; their tools reach the model."""

from __future__ import annotations

import sys
from pathlib import Path

from acp import text_block
from acp.schema import (
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    EnvVariable,
    McpServerStdio,
)

from tests.acp.conftest import acp_agent, wait_until
from tests.conftest import ScriptWriter
from tests.mcp.conftest import SERVER


async def test_session_mcp_server_tool_is_called_and_shown(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "mcp__calc__add", "id": "m1", "arguments": {"a": 2, "b": 40}}]},
        {"text": "The sum is 42."},
    ])
    server = McpServerStdio(name="calc", command=sys.executable, args=[str(SERVER)],
                            env=[EnvVariable(name="TINY_MARK", value="1")])
    # The SDK's import alone can take seconds on a loaded machine: give the first prompt time to wait.
    settings = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("add them")])
    assert response.stop_reason == "end_turn"
    updates = [u for u in client.updates if u.session_update in ("tool_call", "tool_call_update")
               and u.tool_call_id == "m1"]
    assert updates[0].kind == "other" and updates[-1].status == "completed"
    assert "42" in updates[-1].content[0].content.text


async def test_a_server_that_cannot_start_is_named_on_stderr(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"text": "still answering"}])
    broken = McpServerStdio(name="ghost", command=str(project / "no-such-binary"), args=[], env=[])
    async with acp_agent(acp_env, script) as (conn, client, process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[broken])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert response.stop_reason == "end_turn" and client.text() == "still answering"
    assert process.stderr is not None
    err = (await process.stderr.read()).decode()
    assert "ghost" in err and "failed to start" in err


async def test_mcp_command_lists_servers_and_reconnects_one(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    server = McpServerStdio(name="calc", command=sys.executable, args=[str(SERVER)], env=[])
    settings = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    async with acp_agent(acp_env, write_script([])) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        await wait_until(lambda: bool(client.of_kind("available_commands_update")))
        commands = client.of_kind("available_commands_update")[0].available_commands
        assert "mcp" in [c.name for c in commands]
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/mcp reconnect calc")])
        assert "- calc (stdio, session): connected" in client.text()
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/mcp")])
        assert "MCP servers:\n- calc (stdio, session): connected" in client.text()
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/mcp reconnect ghost")])
        assert "No MCP server named 'ghost'." in client.text()


async def test_server_progress_reaches_the_client_as_tool_call_updates(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "mcp__calc__steps", "id": "p1", "arguments": {"count": 3, "pause": 0.25}}]},
        {"text": "done"},
    ])
    server = McpServerStdio(name="calc", command=sys.executable, args=[str(SERVER)], env=[])
    settings = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    texts = [u.content[0].content.text for u in client.of_kind("tool_call_update")
             if u.tool_call_id == "p1" and u.status == "in_progress" and u.content]
    # Tool updates are sent at most every 100 ms; the steps are 250 ms apart.
    assert "step 2 (2/3)" in texts and "step 3 (3/3)" in texts


async def test_server_prompts_become_available_commands_once_the_server_is_up(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    server = McpServerStdio(name="calc", command=sys.executable, args=[str(SERVER)], env=[])
    settings = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    async with acp_agent(acp_env, write_script([{"match": "Please review a.py, looking for bugs", "text": "ok"}])) as (
        conn, client, _process
    ):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])

        def names() -> set[str]:
            return {c.name for u in client.of_kind("available_commands_update") for c in u.available_commands}

        await wait_until(lambda: "mcp__calc__review" in names(), 60)
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/mcp__calc__review a.py")])
    # The model got the server's prompt, not the command.
    assert client.text() == "ok"


async def test_a_server_question_is_asked_through_the_client(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"toolCalls": [{"name": "mcp__calc__ask", "id": "q1", "arguments": {}}]},
                           {"text": "thanks"}])
    server = McpServerStdio(name="calc", command=sys.executable, args=[str(SERVER)], env=[])
    settings = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings.write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        client.elicitation_answers = ["Ada", "36"]
        # The color choice (its index among red, green, (skip)) and no to the subscription.
        client.permission_answers = ["choice-1", "no"]
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())))
        session = await conn.new_session(cwd=str(project), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("ask me")])
    [done] = [u for u in client.of_kind("tool_call_update") if u.tool_call_id == "q1" and u.status == "completed"]
    assert done.content[0].content.text == "accept name=Ada age=36 color=green subscribe=False"
    assert "MCP server calc asks: Who are you?" in client.elicitations[0]
