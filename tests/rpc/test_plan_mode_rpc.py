"""Plan mode over RPC: set_permission_mode "plan", the plan shown as a confirm request, and the mode
switched when the client approves; in print mode nobody can approve, so the session keeps planning."""

from __future__ import annotations

from pathlib import Path

from tests.rpc.conftest import StartRpc
from tests.rpc.test_cli_modes import ScriptWriter, run_atomic
from tests.rpc.test_permission_attacks_rpc import answer_confirm

PLAN = "## Plan\n1. Edit a.txt"
SCRIPT = [
    {"toolCalls": [{"name": "write", "id": "w1", "arguments": {"path": "a.txt", "content": "x"}}]},
    {"toolCalls": [{"name": "exit_plan", "id": "p1", "arguments": {"plan": PLAN}}]},
    {"text": "approved, starting"},
]


async def test_the_plan_is_approved_through_a_confirm_request(start_rpc: StartRpc, work_dir: Path) -> None:
    client = await start_rpc(SCRIPT, "--permission-mode", "accept-edits")
    response = await client.request({"id": "m", "type": "set_permission_mode", "mode": "plan"})
    assert response["success"] is True
    await client.prompt("fix it")
    request = await answer_confirm(client, 0, confirmed=True)
    assert PLAN in request["message"] and request["message"].startswith("Approve this plan")
    await client.wait_for("agent_settled")
    assert not (work_dir / "a.txt").exists()  # refused while planning
    state = await client.request({"id": "s", "type": "get_state"})
    # Back to the mode the user planned from.
    assert state["data"]["permissionMode"] == "accept-edits"
    changed = [m for m in client.lines if m.get("type") == "permission_mode_changed"]
    assert [m["mode"] for m in changed] == ["plan", "accept-edits"]


async def test_print_mode_cannot_approve_a_plan(work_dir: Path, rpc_env: dict[str, str], write_script: ScriptWriter) -> None:
    script = write_script([
        {"toolCalls": [{"name": "exit_plan", "id": "p1", "arguments": {"plan": PLAN}}]},
        {"text": "still planning"},
    ])
    code, out, err = await run_atomic(
        ["-p", "plan it", "--provider", "scripted", "--permission-mode", "plan"], work_dir, rpc_env, script
    )
    assert code == 0, err
    assert out.strip() == "still planning"


def test_the_flag_and_the_engine_know_the_same_modes() -> None:
    from atomic.cli import build_parser
    from atomic.core.permissions import PERMISSION_MODES

    action = next(a for a in build_parser()._actions if "--permission-mode" in a.option_strings)
    assert tuple(action.choices or ()) == PERMISSION_MODES
