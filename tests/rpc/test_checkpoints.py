"""Checkpoints over the wire: get_checkpoints, diff_checkpoint, restore_checkpoint, navigate_tree and
fork with restoreFiles, the checkpoint_created event, and checkpoints that survive a restart,
switch_session, fork and clone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.rpc.client import RpcError
from tests.rpc.conftest import StartRpc


def bash_step(command: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}


def user_ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]


TWO_PROMPTS = [
    {"match": "first", **bash_step("echo one > a.txt")},
    {"match": "first", "text": "did one"},
    {"match": "second", **bash_step("echo two > a.txt; echo b > b.txt")},
    {"match": "second", "text": "did two"},
]


async def test_checkpoints_are_listed_diffed_and_restored(start_rpc: StartRpc, work_dir: Path) -> None:
    (work_dir / "a.txt").write_text("zero\n")
    client = await start_rpc(TWO_PROMPTS)
    await client.run_prompt("first prompt")
    await client.run_prompt("second prompt\nmore lines")
    entries = (await client.call("get_entries"))["entries"]
    first_id, second_id = user_ids(entries)

    listed = (await client.call("get_checkpoints"))["checkpoints"]
    assert [list(c) for c in listed] == [["checkpointId", "entryId", "kind", "timestamp", "text", "files"]] * 2
    assert [(c["entryId"], c["kind"], c["text"], c["files"]) for c in listed] == [
        (first_id, "prompt", "first prompt", 1),
        (second_id, "prompt", "second prompt", 2),
    ]
    created = [e for e in client.events if e["type"] == "checkpoint_created"]
    assert [(e["checkpointId"], e["entryId"]) for e in created] == [(c["checkpointId"], c["entryId"]) for c in listed]
    custom = [e for e in entries if e["type"] == "custom"]
    assert [e["customType"] for e in custom] == ["atomic.checkpoint"] * 2

    diff = await client.call("diff_checkpoint", checkpointId=listed[0]["checkpointId"])
    assert diff["files"] == [{"path": "a.txt", "status": "modified"}, {"path": "b.txt", "status": "added"}]
    assert "-zero\n+two\n" in diff["diff"] and "+++ b/b.txt" in diff["diff"]

    messages = await client.get_messages()
    restored = await client.call("restore_checkpoint", checkpointId=listed[0]["checkpointId"])
    assert restored["restored"] == ["a.txt"] and restored["deleted"] == ["b.txt"] and restored["skipped"] == []
    assert (work_dir / "a.txt").read_text() == "zero\n" and not (work_dir / "b.txt").exists()
    assert await client.get_messages() == messages
    after = (await client.call("get_checkpoints"))["checkpoints"]
    assert after[-1]["checkpointId"] == restored["undoCheckpointId"]
    assert (after[-1]["kind"], after[-1]["entryId"]) == ("restore", None)

    # Undo the restore.
    await client.call("restore_checkpoint", checkpointId=restored["undoCheckpointId"])
    assert (work_dir / "a.txt").read_text() == "two\n" and (work_dir / "b.txt").read_text() == "b\n"


async def test_bad_checkpoint_commands_get_clear_errors(start_rpc: StartRpc, work_dir: Path) -> None:
    client = await start_rpc([])
    for command in ("restore_checkpoint", "diff_checkpoint"):
        with pytest.raises(RpcError, match="Unknown checkpoint: nope"):
            await client.call(command, checkpointId="nope")
    response = await client.request({"type": "restore_checkpoint"})
    assert response["success"] is False and "checkpointId" in response["error"]
    with pytest.raises(RpcError, match="restoreFiles needs a user message"):
        await client.call("navigate_tree", targetId=None, restoreFiles=True)
    assert (await client.get_state())["isStreaming"] is False


async def test_restore_is_refused_while_running(start_rpc: StartRpc, work_dir: Path) -> None:
    client = await start_rpc([{"match": "first", **bash_step("echo one > a.txt")}, {"match": "first", "text": "ok"},
                              {"match": "hang", "hang": True}])
    await client.run_prompt("first")
    [checkpoint] = (await client.call("get_checkpoints"))["checkpoints"]
    await client.prompt("hang now")
    await client.wait_for("message_update")
    with pytest.raises(RpcError, match="abort first"):
        await client.call("restore_checkpoint", checkpointId=checkpoint["checkpointId"])
    assert (work_dir / "a.txt").read_text() == "one\n"
    await client.abort()


async def test_navigate_tree_with_restore_files(start_rpc: StartRpc, work_dir: Path) -> None:
    (work_dir / "a.txt").write_text("zero\n")
    client = await start_rpc(TWO_PROMPTS)
    await client.run_prompt("first prompt")
    await client.run_prompt("second prompt")
    first_id, second_id = user_ids((await client.call("get_entries"))["entries"])

    plain = await client.call("navigate_tree", targetId=second_id)
    assert "restoredFiles" not in plain and (work_dir / "a.txt").read_text() == "two\n"

    data = await client.call("navigate_tree", targetId=second_id, restoreFiles=True)
    assert data["editorText"] == "second prompt"
    assert data["restoredFiles"]["restored"] == ["a.txt"] and data["restoredFiles"]["deleted"] == ["b.txt"]
    assert (work_dir / "a.txt").read_text() == "one\n"

    data = await client.call("navigate_tree", targetId=first_id, restoreFiles=True)
    assert (work_dir / "a.txt").read_text() == "zero\n"
    assert [m["role"] for m in await client.get_messages()] == []


async def test_fork_with_restore_files_records_the_undo_in_the_new_session(
    start_rpc: StartRpc, work_dir: Path
) -> None:
    (work_dir / "a.txt").write_text("zero\n")
    client = await start_rpc(TWO_PROMPTS)
    await client.run_prompt("first prompt")
    await client.run_prompt("second prompt")
    _first_id, second_id = user_ids((await client.call("get_entries"))["entries"])
    old_file = (await client.get_state())["sessionFile"]

    data = await client.call("fork", entryId=second_id, restoreFiles=True)
    assert data["text"] == "second prompt" and data["cancelled"] is False
    assert data["restoredFiles"]["restored"] == ["a.txt"]
    assert (work_dir / "a.txt").read_text() == "one\n"
    assert (await client.get_state())["sessionFile"] != old_file
    listed = (await client.call("get_checkpoints"))["checkpoints"]
    # The fork holds the first prompt and its checkpoint, plus the undo of this restore.
    assert [c["kind"] for c in listed] == ["prompt", "restore"]
    assert listed[-1]["checkpointId"] == data["restoredFiles"]["undoCheckpointId"]
    await client.call("restore_checkpoint", checkpointId=listed[-1]["checkpointId"])
    assert (work_dir / "a.txt").read_text() == "two\n"

    plain = await client.call("fork", entryId=user_ids((await client.call("get_entries"))["entries"])[0])
    assert "restoredFiles" not in plain


async def test_checkpoints_survive_a_restart_continue_switch_and_clone(
    start_rpc: StartRpc, work_dir: Path
) -> None:
    (work_dir / "a.txt").write_text("zero\n")
    client = await start_rpc(TWO_PROMPTS)
    await client.run_prompt("first prompt")
    session_file = (await client.get_state())["sessionFile"]
    [checkpoint] = (await client.call("get_checkpoints"))["checkpoints"]
    await client.close()

    again = await start_rpc([], "-c")
    assert (await again.get_state())["sessionFile"] == session_file
    assert (await again.call("get_checkpoints"))["checkpoints"] == [checkpoint]
    await again.call("clone")
    assert (await again.call("get_checkpoints"))["checkpoints"] == [checkpoint]
    await again.call("new_session")
    assert (await again.call("get_checkpoints"))["checkpoints"] == []
    await again.call("switch_session", sessionPath=session_file)
    restored = await again.call("restore_checkpoint", checkpointId=checkpoint["checkpointId"])
    assert restored["restored"] == ["a.txt"]
    assert (work_dir / "a.txt").read_text() == "zero\n"
    lines = [json.loads(line) for line in Path(session_file).read_text().splitlines()]
    assert [line["data"]["kind"] for line in lines if line.get("type") == "custom"] == ["prompt", "restore"]


async def test_disabled_checkpoints_answer_with_an_error(start_rpc: StartRpc, work_dir: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"checkpoints": {"enabled": False}}))
    client = await start_rpc([bash_step("echo x > a.txt"), {"text": "ok"}])
    await client.run_prompt("go")
    with pytest.raises(RpcError, match="disabled"):
        await client.call("get_checkpoints")
    assert not [e for e in client.events if e["type"] == "checkpoint_created"]
    assert not (agent_dir / "checkpoints").exists()
