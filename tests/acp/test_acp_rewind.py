"""/rewind and /undo over ACP: offered as available commands, answered as a message, restoring the
files a bash call changed (and for /undo moving the conversation back)."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter

SCRIPT = [
    {"match": "first", "toolCalls": [{"name": "bash", "arguments": {"command": "echo one > a.txt"}}]},
    {"match": "first", "text": "did one"},
    {"match": "second", "toolCalls": [{"name": "bash", "arguments": {"command": "echo two > a.txt; echo b > b.txt"}}]},
    {"match": "second", "text": "did two"},
    {"match": "third", "text": "only talk"},
]


async def test_rewind_and_undo_over_acp(acp_env: dict[str, str], write_script: ScriptWriter, project: Path) -> None:
    (project / "a.txt").write_text("zero\n")
    async with acp_agent(acp_env, write_script(SCRIPT)) as (conn, client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        sid = session.session_id

        async def say(text: str) -> str:
            before = len(client.of_kind("agent_message_chunk"))
            await conn.prompt(session_id=sid, prompt=[text_block(text)])
            return "".join(u.content.text for u in client.of_kind("agent_message_chunk")[before:])

        client.permission_answers = ["allow_once", "allow_once"]
        await say("first prompt")
        await say("second prompt")
        commands = [c.name for c in client.of_kind("available_commands_update")[0].available_commands]
        assert {"rewind", "undo"} <= set(commands)

        listing = await say("/rewind")
        assert "1. first prompt (1 file(s) changed)" in listing and "2. second prompt (2 file(s) changed)" in listing

        reply = await say("/rewind 1")
        assert "Restored 1 file(s), deleted 1." in reply and "/rewind undo" in reply
        assert (project / "a.txt").read_text() == "zero\n" and not (project / "b.txt").exists()
        reply = await say("/rewind undo")
        assert (project / "a.txt").read_text() == "two\n" and (project / "b.txt").exists()

        assert "Usage: /rewind N" in await say("/rewind 9")

        reply = await say("/undo")
        assert "back to before: second prompt" in reply
        assert (project / "a.txt").read_text() == "one\n" and not (project / "b.txt").exists()
        # The conversation went back too: the model now sees only the first exchange.
        assert "only talk" in await say("third prompt")
        listing = await say("/rewind")
        assert "second prompt" not in listing and "third prompt" in listing
