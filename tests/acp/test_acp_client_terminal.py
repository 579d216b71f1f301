"""bash in the client's terminals (`terminal/*`) when acp.clientTerminal is on; local otherwise."""

from __future__ import annotations

from pathlib import Path

from acp import text_block
from acp.schema import ClientCapabilities

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


def settings(acp_env: dict[str, str], on: bool) -> None:
    path = Path(acp_env["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    path.write_text('{"acp": {"clientTerminal": %s}}' % ("true" if on else "false"))


async def test_bash_runs_in_the_client_terminal_when_the_setting_is_on(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    settings(acp_env, True)
    script = write_script([
        {"toolCalls": [{"name": "bash", "id": "b1", "arguments": {"command": "echo from-the-editor; exit 3"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(terminal=True))
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    [terminal_id] = list(client.terminals)
    assert client.terminals[terminal_id]["command"] == ["-c", "echo from-the-editor; exit 3"]
    assert client.released == [terminal_id]
    updates = [u for u in client.of_kind("tool_call_update") if u.tool_call_id == "b1"]
    assert any(c.type == "terminal" and c.terminal_id == terminal_id for u in updates for c in u.content or [])
    [end] = [u for u in updates if u.status in ("completed", "failed")]
    assert end.status == "failed" and end.content[0].type == "terminal"
    # The model got the same result as from a local run.
    assert "from-the-editor" in str(end.raw_output) and "exited with code 3" in str(end.raw_output)


async def test_bash_stays_local_by_default(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    settings(acp_env, False)
    script = write_script([
        {"toolCalls": [{"name": "bash", "id": "b1", "arguments": {"command": "echo local"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(terminal=True))
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert client.terminals == {}
    [end] = [u for u in client.of_kind("tool_call_update") if u.tool_call_id == "b1" and u.status == "completed"]
    assert end.content[0].content.text.strip() == "local"


async def test_a_timeout_kills_the_client_terminal_and_releases_it(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    settings(acp_env, True)
    script = write_script([
        {"toolCalls": [{"name": "bash", "id": "b1", "arguments": {"command": "echo start; sleep 30", "timeout": 1}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(terminal=True))
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    [entry] = client.terminals.values()
    assert entry["proc"].returncode is not None and client.released
    [end] = [u for u in client.of_kind("tool_call_update") if u.tool_call_id == "b1" and u.status == "failed"]
    assert "timed out after 1 seconds" in str(end.raw_output) and "start" in str(end.raw_output)
