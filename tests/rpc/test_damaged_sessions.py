"""A damaged session file opens by `--session`, `-c` and `switch_session`: what can be read is there, one
stderr line says what was skipped, get_state carries `sessionRecovery`, and the damaged bytes are kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.rpc.conftest import StartRpc
from tests.rpc.test_sessions import assistant_entry, header, user_entry

SESSION_ID = "019ae5f0-aaaa-7bbb-8ccc-0123456789ab"


def headless_file(folder: Path, name: str = f"2026-12-04T10-00-00-000Z_{SESSION_ID}.jsonl") -> Path:
    """A file that lost its header line and has a torn line in the middle (its children still follow)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        json.dumps(user_entry("u1", None, "what survived")) + "\n"
        + '{"type":"message","id":"a1","parentId":"u1","timest\n'
        + json.dumps(user_entry("u2", "a1", "after the tear")) + "\n"
        + json.dumps(assistant_entry("a2", "u2", "still here")) + "\n",
        encoding="utf-8",
    )
    return path


def recovery_lines(stderr: list[str]) -> list[str]:
    return [line for line in stderr if "was damaged" in line]


async def test_session_flag_opens_a_headless_file_and_says_so_once(start_rpc: StartRpc, tmp_path: Path) -> None:
    path = headless_file(tmp_path / "sessions")
    damaged = path.read_bytes()
    client = await start_rpc([{"text": "carry on"}], "--session", str(path))
    state = await client.get_state()
    assert state["sessionFile"] == str(path) and state["sessionId"] == SESSION_ID
    recovery = state["sessionRecovery"]
    assert recovery["headerRebuilt"] is True and recovery["skippedLines"] == [2] and recovery["relinkedEntries"] == 1
    assert Path(recovery["backupFile"]).read_bytes() == damaged
    assert [m["content"] if m["role"] == "user" else m["role"] for m in await client.get_messages()] == [
        "what survived", "after the tear", "assistant"
    ]
    await client.run_prompt("and now")
    assert await client.get_last_assistant_text() == "carry on"
    await client.close()
    [line] = recovery_lines(client.stderr_lines)
    assert line.startswith("warning: ") and str(path) in line and recovery["backupFile"] in line
    first = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])
    assert first["type"] == "session" and first["id"] == SESSION_ID


async def test_continue_opens_the_newest_file_even_when_it_is_damaged(
    start_rpc: StartRpc, tmp_path: Path, work_dir: Path
) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    older = sessions / "2026-12-01T10-00-00-000Z_019ae5f0-0000-7000-8000-000000000001.jsonl"
    older.write_text(
        json.dumps(header("019ae5f0-0000-7000-8000-000000000001", work_dir)) + "\n"
        + json.dumps(user_entry("o1", None, "the older session")) + "\n",
        encoding="utf-8",
    )
    os.utime(older, (1_000_000_000, 1_000_000_000))
    newest = headless_file(sessions)
    client = await start_rpc(None, "-c", "--session-dir", str(sessions))
    state = await client.get_state()
    assert state["sessionFile"] == str(newest) and "sessionRecovery" in state
    assert (await client.get_messages())[0]["content"] == "what survived"
    await client.close()
    assert len(recovery_lines(client.stderr_lines)) == 1


async def test_switch_session_to_a_damaged_file_reports_it_once(start_rpc: StartRpc, tmp_path: Path) -> None:
    path = headless_file(tmp_path / "elsewhere")
    client = await start_rpc(None)
    assert "sessionRecovery" not in await client.get_state()
    assert await client.call("switch_session", sessionPath=str(path)) == {"cancelled": False}
    state = await client.get_state()
    assert state["sessionFile"] == str(path) and state["sessionRecovery"]["headerRebuilt"] is True
    assert [m["role"] for m in await client.get_messages()] == ["user", "user", "assistant"]
    await client.call("get_state")
    await client.close()
    assert len(recovery_lines(client.stderr_lines)) == 1


async def test_switching_on_to_a_clean_file_drops_the_report(start_rpc: StartRpc, tmp_path: Path, work_dir: Path) -> None:
    damaged = headless_file(tmp_path / "a")
    clean = tmp_path / "b" / "clean.jsonl"
    clean.parent.mkdir()
    clean.write_text(json.dumps(header("0000-clean", work_dir)) + "\n" + json.dumps(user_entry("c1", None, "ok")) + "\n")
    client = await start_rpc(None)
    await client.call("switch_session", sessionPath=str(damaged))
    await client.call("switch_session", sessionPath=str(clean))
    assert "sessionRecovery" not in await client.get_state()


async def test_a_folder_given_as_the_session_is_a_clear_error(start_rpc: StartRpc, tmp_path: Path) -> None:
    folder = tmp_path / "sessions.jsonl"
    folder.mkdir()
    client = await start_rpc(None)
    response = await client.request({"type": "switch_session", "sessionPath": str(folder)})
    assert response["success"] is False and response["error"].endswith("it is a folder")
    assert (await client.get_state())["isStreaming"] is False  # still serving
