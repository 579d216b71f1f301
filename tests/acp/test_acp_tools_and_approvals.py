"""ACP tool calls: kinds, statuses, diffs with the real old text, and approvals answered both ways."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


def tool_updates(client, tool_call_id: str) -> list:
    return [u for u in client.updates
            if u.session_update in ("tool_call", "tool_call_update") and u.tool_call_id == tool_call_id]


async def test_edit_reports_a_diff_with_the_old_text_and_an_absolute_path(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    script = write_script([
        {"toolCalls": [{"name": "edit", "id": "e1",
                        "arguments": {"path": "notes.txt", "edits": [{"oldText": "beta", "newText": "gamma"}]}}]},
        {"text": "edited"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit it")])
    assert response.stop_reason == "end_turn"
    updates = tool_updates(client, "e1")
    assert updates[0].session_update == "tool_call" and updates[0].kind == "edit"
    assert updates[0].locations[0].path == str(project / "notes.txt")
    assert [u.status for u in updates] == ["pending", "in_progress", "completed"]
    [diff] = updates[-1].content
    assert diff.type == "diff" and diff.path == str(project / "notes.txt")
    assert diff.old_text == "alpha\nbeta\n" and diff.new_text == "alpha\ngamma\n"
    assert (project / "notes.txt").read_text() == "alpha\ngamma\n"


async def test_approved_bash_streams_output_as_an_execute_call(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "bash", "id": "b1", "arguments": {"command": "echo approved-output"}}]},
        {"text": "ran it"},
    ])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        client.permission_answers = ["allow_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("run")])
    assert response.stop_reason == "end_turn"
    [(tool_call, options)] = client.permission_requests
    assert tool_call.tool_call_id == "b1" and tool_call.kind == "execute"
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    updates = tool_updates(client, "b1")
    assert updates[0].kind == "execute" and updates[-1].status == "completed"
    assert "approved-output" in updates[-1].content[0].content.text


async def test_rejected_write_never_happens_and_the_model_is_told(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    script = write_script([
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": "new.txt", "content": "x"}}]},
        {"text": "understood"},
    ])
    async with acp_agent(acp_env, script) as (conn, client, _process):
        client.permission_answers = ["reject_once"]
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("write")])
    assert response.stop_reason == "end_turn"
    assert not (project / "new.txt").exists()
    final = tool_updates(client, "w1")[-1]
    assert final.status == "failed" and "rejected" in final.content[0].content.text
    assert client.text() == "understood"


async def test_file_tools_use_the_editors_buffers_when_it_offers_them(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    from acp.schema import ClientCapabilities, FileSystemCapabilities

    (project / "app.py").write_text("on disk\n")
    outside = project.parent / "outside.txt"
    script = write_script([
        {"toolCalls": [{"name": "read", "id": "r1", "arguments": {"path": "app.py"}}]},
        {"toolCalls": [{"name": "edit", "id": "e1",
                        "arguments": {"path": "app.py", "edits": [{"oldText": "unsaved", "newText": "edited"}]}}]},
        {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": str(outside), "content": "local\n"}}]},
        {"text": "done"},
    ])
    async with acp_agent(acp_env, script, "--permission-mode", "yolo") as (conn, client, _process):
        client.buffers[str(project / "app.py")] = "unsaved buffer\n"
        capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True))
        await conn.initialize(protocol_version=1, client_capabilities=capabilities)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("work")])
    # The model read the editor's unsaved text, and the edit went back to the editor.
    assert "unsaved buffer" in tool_updates(client, "r1")[-1].content[0].content.text
    assert client.buffers[str(project / "app.py")] == "edited buffer\n"
    assert (project / "app.py").read_text() == "on disk\n"
    [diff] = tool_updates(client, "e1")[-1].content
    assert diff.old_text == "unsaved buffer\n" and diff.new_text == "edited buffer\n"
    # Outside the session's folder the disk is used.
    assert outside.read_text() == "local\n"
