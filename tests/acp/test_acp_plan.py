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
