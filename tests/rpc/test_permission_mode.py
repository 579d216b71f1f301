"""Permission modes over RPC: the --permission-mode flag, get_state and set_permission_mode."""

from __future__ import annotations

import json
from pathlib import Path

from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient


async def test_flag_state_and_switching(start_rpc: StartRpc) -> None:
    client = await start_rpc([], "--permission-mode", "accept-edits")
    assert (await client.get_state())["permissionMode"] == "accept-edits"
    response = await client.request({"id": "p1", "type": "set_permission_mode", "mode": "ask"})
    assert response == {"id": "p1", "type": "response", "command": "set_permission_mode", "success": True}
    assert (await client.get_state())["permissionMode"] == "ask"
    changed = await client.wait_for("permission_mode_changed")
    assert changed["mode"] == "ask"


async def test_unknown_mode_is_refused(start_rpc: StartRpc) -> None:
    client = await start_rpc([])
    response = await client.request({"id": "p2", "type": "set_permission_mode", "mode": "sometimes"})
    assert response["success"] is False and response["command"] == "set_permission_mode"
    assert (await client.get_state())["permissionMode"] == "yolo"


async def _approval_turn(start_rpc: StartRpc, work_dir: Path, confirmed: bool) -> tuple[RecordingClient, dict]:
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "touch approved.txt"}, "id": "b1"}]},
              {"text": "finished"}]
    client = await start_rpc(script, "--permission-mode", "ask")
    await client.prompt("make the file")
    request = await client.wait_for("extension_ui_request", predicate=lambda e: e["method"] == "confirm")
    client.send_raw(json.dumps({"type": "extension_ui_response", "id": request["id"], "confirmed": confirmed}) + "\n")
    await client.wait_for("agent_settled")
    return client, request


async def test_ask_mode_asks_through_an_extension_ui_confirm(start_rpc: StartRpc, work_dir: Path) -> None:
    client, request = await _approval_turn(start_rpc, work_dir, confirmed=True)
    assert request["title"] == "Allow bash?" and request["message"] == "Run `touch approved.txt`"
    assert (work_dir / "approved.txt").exists()
    result = [m for m in await client.get_messages() if m["role"] == "toolResult"][0]
    assert result["isError"] is False


async def test_a_declined_confirm_rejects_the_call(start_rpc: StartRpc, work_dir: Path) -> None:
    client, _request = await _approval_turn(start_rpc, work_dir, confirmed=False)
    assert not (work_dir / "approved.txt").exists()
    result = [m for m in await client.get_messages() if m["role"] == "toolResult"][0]
    assert result["isError"] is True and "rejected" in result["content"][0]["text"]
