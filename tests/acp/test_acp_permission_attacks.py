"""A hostile model (and a hostile line) against the ACP agent: approvals and the reader hold."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


async def test_a_line_of_100000_brackets_is_answered_and_the_agent_keeps_serving(
    acp_env: dict[str, str], write_script: ScriptWriter
) -> None:
    env = dict(acp_env, ATOMIC_SCRIPT=str(write_script([])))
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", "--mode", "acp", "--provider", "scripted",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(b"[" * 100_000 + b"\n")
        process.stdin.write(b"{" * 100_000 + b"\n")
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        process.stdin.write(json.dumps(init).encode() + b"\n")
        await process.stdin.drain()
        answers = [json.loads(await asyncio.wait_for(process.stdout.readline(), 20)) for _ in range(3)]
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 10)
    assert [a.get("error", {}).get("code") for a in answers[:2]] == [-32700, -32700]
    assert answers[2]["id"] == 1 and answers[2]["result"]["protocolVersion"] == 1


async def test_allow_always_for_a_write_covers_only_the_working_folder(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = write_script([
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": str(project / "a.txt"), "content": "1"}}]},
        {"toolCalls": [{"name": "write", "id": "w2", "arguments": {"path": str(project / "b.txt"), "content": "2"}}]},
        {"toolCalls": [{"name": "write", "id": "w3", "arguments": {"path": str(outside / "c.txt"), "content": "3"}}]},
        {"toolCalls": [{"name": "write", "id": "w4", "arguments": {"path": str(outside / "d.txt"), "content": "4"}}]},
        {"toolCalls": [{"name": "write", "id": "w5", "arguments": {"path": str(project / ".mcp.json"), "content": "{}"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "ask") as (conn, client, _process):
        client.permission_answers = ["allow_always", "allow_once", "reject_once", "reject_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write")])
    asked = [tool_call.tool_call_id for tool_call, _options in client.permission_requests]
    # w2 ran under the "always" of w1; w3 was allowed once only, so w4 and the protected .mcp.json asked again.
    assert asked == ["w1", "w3", "w4", "w5"]
    assert (project / "b.txt").exists() and (outside / "c.txt").exists()
    assert not (outside / "d.txt").exists() and not (project / ".mcp.json").exists()
    first_options = client.permission_requests[0][1]
    assert first_options[1].name == f"Always allow (Write({project.resolve()}/**))"
    # Nothing to remember outside the folder or for a protected file: no "Always allow" is offered.
    for _tool_call, options in client.permission_requests[1:]:
        assert [o.option_id for o in options] == ["allow_once", "reject_once", "reject_always"]


async def test_an_always_that_was_not_offered_rejects(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    """A client answering "allow_always" where no rule could be saved gets a rejection, not a yes."""
    script = write_script([
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": str(project / ".mcp.json"), "content": "{}"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "ask") as (conn, client, _process):
        client.permission_answers = ["allow_always"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write")])
    assert [t.tool_call_id for t, _o in client.permission_requests] == ["w1"]
    assert not (project / ".mcp.json").exists()


async def test_allow_always_for_bash_never_covers_an_expansion(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "bash", "id": "b1", "arguments": {"command": "ls"}}]},
        {"toolCalls": [{"name": "bash", "id": "b2", "arguments": {"command": "ls ${HOME:$'a[\\x24(touch PWNED)]'}"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "ask") as (conn, client, _process):
        client.permission_answers = ["allow_always", "reject_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run")])
    assert [t.tool_call_id for t, _o in client.permission_requests] == ["b1", "b2"]
    assert not (project / "PWNED").exists()
