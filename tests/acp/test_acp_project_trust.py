"""ACP in an undecided folder: the project's resources stay out, the session works, stderr says so once."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.conftest import acp_agent
from tests.conftest import ScriptWriter


async def test_undecided_project_is_skipped_and_named_once_on_stderr(
    acp_env: dict[str, str], write_script: ScriptWriter, project: Path
) -> None:
    ext = project / ".atomic" / "extensions"
    ext.mkdir(parents=True)
    (ext / "mark.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('IMPORTED').write_text('x')\ndef activate(atomic): pass\n"
    )
    script = write_script([{"text": "answered"}])
    async with acp_agent(acp_env, script) as (conn, client, process):
        await conn.initialize(protocol_version=1)
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        assert response.stop_reason == "end_turn" and client.text() == "answered"
    assert process.stderr is not None
    err = (await process.stderr.read()).decode()
    lines = [line for line in err.splitlines() if "not trusted" in line]
    assert len(lines) == 1 and "1 extension" in lines[0] and "--approve" in lines[0]
    assert not (ext / "IMPORTED").exists()
