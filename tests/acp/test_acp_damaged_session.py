"""ACP `session/load` of a session file that a crash damaged: it loads what can be read and replays it."""

from __future__ import annotations

import json
from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


async def test_load_of_a_headless_torn_file_replays_what_survived(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path, isolated_home: Path
) -> None:
    script = write_script([{"text": "First answer."}, {"text": "Second answer."}])
    async with acp_agent(acp_env, script) as (conn, _client, _process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("the first question")])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("the second question")])
    [path] = (isolated_home / "sessions").rglob("*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    # The header is gone and the last line is torn in half.
    damaged = "\n".join(lines[1:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2]
    path.write_text(damaged, encoding="utf-8")

    async with acp_agent(acp_env, write_script([])) as (conn, client, process):
        await conn.initialize(protocol_version=1)
        listed = await conn.list_sessions(cwd=str(project))
        assert [s.session_id for s in listed.sessions] == [session.session_id]
        await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
        user_chunks = [u.content.text for u in client.of_kind("user_message_chunk")]
        assert user_chunks == ["the first question", "the second question"]
        assert client.text() == "First answer."  # the torn second answer is not replayed
    header = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
    assert header["type"] == "session" and header["id"] == session.session_id
    [backup] = path.parent.glob(f"{path.name}.*.damaged")
    assert backup.read_text(encoding="utf-8") == damaged
    assert process.stderr is not None
    stderr = (await process.stderr.read()).decode(errors="replace")
    assert stderr.count("was damaged") == 1 and str(backup) in stderr
