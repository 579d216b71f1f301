"""get_state's `sandbox` (an Atomic addition): the mode, the network rule and whether the OS provides it;
a machine without support (ATOMIC_BWRAP pointing at nothing) says so and still runs the model's commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.sandbox.conftest import SUPPORT, bash_calls, needs_sandbox


async def test_get_state_reports_the_sandbox(start_rpc: Any) -> None:
    client = await start_rpc([], "--sandbox", "read-only")
    state = await client.get_state()
    assert state["sandbox"] == {"mode": "read-only", "network": True, "available": SUPPORT.available}


@needs_sandbox
async def test_get_state_says_available_where_bubblewrap_works(start_rpc: Any) -> None:
    client = await start_rpc([])
    state = await client.get_state()
    assert state["sandbox"] == {"mode": "workspace-write", "network": True, "available": True}


async def test_without_support_commands_run_and_get_state_says_unavailable(start_rpc: Any, rpc_env: dict[str, str],
                                                                         work_dir: Path) -> None:
    env = dict(rpc_env, ATOMIC_BWRAP="/nonexistent/bwrap")
    client = await start_rpc(bash_calls("echo ran > ran.txt"), env=env)
    state = await client.get_state()
    assert state["sandbox"] == {"mode": "workspace-write", "network": True, "available": False}
    await client.prompt("go")
    await client.wait_idle()
    assert (work_dir / "ran.txt").read_text() == "ran\n"


@needs_sandbox
async def test_the_users_own_bash_command_is_not_sandboxed(start_rpc: Any, tmp_path: Path) -> None:
    import shutil
    import tempfile

    outside = Path(tempfile.mkdtemp(prefix="atomic-rpc-bash-", dir="/var/tmp"))
    try:
        client = await start_rpc([])
        response = await client.request({"type": "bash", "command": f"echo mine > {outside}/user.txt"})
        assert response["success"] is True and response["data"]["exitCode"] == 0
        assert (outside / "user.txt").read_text() == "mine\n"
    finally:
        shutil.rmtree(outside, ignore_errors=True)
