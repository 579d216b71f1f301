"""ACP clients' plan panels show the model's to-do list as `plan` session updates."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


async def test_the_todo_list_is_sent_as_a_plan(acp_env: dict[str, str], write_script: ScriptWriter, project: Path) -> None:
    todos = [
        {"content": "find the bug", "status": "completed", "priority": "high"},
        {"content": "fix it", "status": "in_progress"},
    ]
    script = write_script([
        {"toolCalls": [{"name": "todo", "id": "t1", "arguments": {"todos": todos}}]},
        {"text": "planned"},
    ])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan")])
    assert response.stop_reason == "end_turn"
    [plan] = client.of_kind("plan")
    assert [(e.content, e.status, e.priority) for e in plan.entries] == [
        ("find the bug", "completed", "high"),
        ("fix it", "in_progress", "medium"),
    ]


async def test_a_subagent_is_one_tool_call_with_streamed_content(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"matchFirst": "^delegate", "toolCalls": [{"name": "task", "id": "k1", "arguments": {
            "description": "count files", "prompt": "count the files", "agent": "explore"}}]},
        {"matchFirst": "^count the files", "text": "CHILD says: there are none"},
        {"matchFirst": "^delegate", "text": "parent wraps up"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("delegate it")])
    assert response.stop_reason == "end_turn"
    calls = [u for u in client.updates if u.session_update in ("tool_call", "tool_call_update")]
    assert {u.tool_call_id for u in calls} == {"k1"}  # the child's own turns are not tool calls of the session
    assert calls[-1].status == "completed"
    assert "there are none" in calls[-1].content[0].content.text
    # The child's reply is the tool's content, not a message of the agent.
    assert "CHILD says" not in client.text() and "parent wraps up" in client.text()


async def test_plan_mode_asks_for_the_plan_as_a_permission_request(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    plan = "## Plan\n1. Write notes.txt"
    script = write_script([
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": "notes.txt", "content": "x"}}]},
        {"toolCalls": [{"name": "exit_plan", "id": "p1", "arguments": {"plan": plan}}]},
        {"text": "approved, starting"},
    ])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        client.permission_answers = ["allow_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan the notes")])
    assert response.stop_reason == "end_turn"
    assert not (project / "notes.txt").exists()  # refused while planning
    [(tool_call, _options)] = client.permission_requests
    assert tool_call.tool_call_id == "p1" and "Write notes.txt" in str(tool_call.title)
    modes = [u.current_mode_id for u in client.of_kind("current_mode_update")]
    assert modes[-1] == "ask"  # ACP sessions start in ask: approving goes back to it


async def test_web_fetch_is_asked_per_domain(acp_env: dict[str, str], write_script: ScriptWriter, project: Path) -> None:
    script = write_script([
        {"toolCalls": [{"name": "web_fetch", "id": "f1", "arguments": {"url": "http://127.0.0.1:9/none"}}]},
        {"text": "refused"},
    ])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        client.permission_answers = ["reject_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("fetch")])
    [(tool_call, options)] = client.permission_requests
    assert tool_call.tool_call_id == "f1" and "Fetch http://127.0.0.1:9/none" in str(tool_call.title)
    assert any("WebFetch(domain:127.0.0.1)" in str(o.name) for o in options)
