"""ACP session lifecycle: cancel, settings, load in a fresh process, list and close, errors."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from acp import text_block
from acp.exceptions import RequestError

from tests.acp.conftest import acp_agent, wait_until
from tests.conftest import ScriptWriter


async def test_cancel_answers_the_pending_prompt_with_cancelled(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"text": "never finishes", "hang": True}])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        pending = asyncio.ensure_future(conn.prompt(session_id=session.session_id, prompt=[text_block("hang")]))
        await wait_until(lambda: bool(client.of_kind("agent_message_chunk")))
        await conn.cancel(session_id=session.session_id)
        response = await asyncio.wait_for(pending, 5)
    assert response.stop_reason == "cancelled"


async def test_config_options_and_modes_change_the_thinking_level_and_approvals(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    async with acp_agent(acp_env, write_script([])) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        options = {o.id: o for o in session.config_options}
        levels = [o.value for o in options["thought_level"].options]
        target = levels[-1]
        answer = await conn.set_config_option(config_id="thought_level", session_id=session.session_id, value=target)
        assert {o.id: o.current_value for o in answer.config_options}["thought_level"] == target
        answer = await conn.set_config_option(config_id="mode", session_id=session.session_id, value="yolo")
        assert {o.id: o.current_value for o in answer.config_options}["mode"] == "yolo"
        # Toad reads only the legacy modes: they are the approval modes.
        await conn.set_session_mode(session_id=session.session_id, mode_id="accept-edits")
        await wait_until(lambda: any(u.current_mode_id == "accept-edits" for u in client.of_kind("current_mode_update")))
        await wait_until(lambda: any({o.id: o.current_value for o in u.config_options}.get("mode") == "accept-edits"
                                     for u in client.of_kind("config_option_update")))
        with pytest.raises(RequestError, match="Unknown mode"):
            await conn.set_session_mode(session_id=session.session_id, mode_id="sometimes")
        with pytest.raises(RequestError):
            await conn.set_config_option(config_id="mode", session_id=session.session_id, value="sometimes")
    assert client.of_kind("config_option_update")


async def test_load_in_a_fresh_process_replays_the_conversation(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    (project / "notes.txt").write_text("remember the milk\n")
    script = write_script([
        {"toolCalls": [{"name": "read", "id": "l1", "arguments": {"path": "notes.txt"}}]},
        {"text": "All listed."},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("list the files")])
    async with acp_agent(acp_env, write_script([])) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        assert listed.sessions[0].title == "list the files"
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        # Everything was replayed before the load was answered.
        assert client.text("user_message_chunk") == "list the files"
        assert client.text() == "All listed."
        [call] = client.of_kind("tool_call")
        assert call.tool_call_id == "l1" and call.kind == "read" and call.status == "completed"
        assert "remember the milk" in call.content[0].content.text
        await conn.close_session(session_id=session.session_id)
        with pytest.raises(RequestError):
            await conn.prompt(session_id=session.session_id, prompt=[text_block("after close")])


async def test_provider_error_is_a_readable_json_rpc_error(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"error": "401 invalid x-api-key", "kind": "auth", "status": 401}])
    async with acp_agent(acp_env, script) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        with pytest.raises(RequestError) as caught:
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert "invalid x-api-key" in str(caught.value)


async def test_malformed_lines_get_errors_and_the_agent_keeps_serving(acp_env: dict[str, str],
                                                                      write_script: ScriptWriter) -> None:
    env = dict(acp_env, ATOMIC_SCRIPT=str(write_script([])))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", "--mode", "acp", "--provider", "scripted",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    assert process.stdin is not None and process.stdout is not None

    async def send(line: str) -> dict:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line.encode() + b"\n")
        await process.stdin.drain()
        return json.loads(await asyncio.wait_for(process.stdout.readline(), 20))

    try:
        assert await send("{not json") == {"jsonrpc": "2.0", "id": None,
                                           "error": {"code": -32700, "message": "Parse error"}}
        assert (await send("[1, 2]"))["error"]["code"] == -32600
        unknown = await send(json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/teleport", "params": {}}))
        assert unknown["id"] == 7 and unknown["error"]["code"] == -32601
        init = await send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize",
                                      "params": {"protocolVersion": 1}}))
        assert init["id"] == 8 and init["result"]["protocolVersion"] == 1
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 10)


async def test_a_refusal_is_a_stop_reason_not_an_error(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([{"error": "The model refused to answer this request", "kind": "refusal"},
                           {"error": "The model refused: connection refused", "kind": "fatal"}])
    async with acp_agent(acp_env, script) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("something bad")])
        assert response.stop_reason == "refusal"
        # The error's kind decides, not its words: a failure that mentions refusing is still an error.
        with pytest.raises(RequestError, match="connection refused"):
            await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
