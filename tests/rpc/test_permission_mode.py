"""Permission modes over RPC: the --permission-mode flag, get_state and set_permission_mode."""

from __future__ import annotations

from tests.rpc.conftest import StartRpc


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
