"""Print mode (`-p`), `--mode json`, and CLI errors of `--mode rpc`, run as real subprocesses."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ScriptWriter = Callable[[list[dict[str, Any]]], Path]


async def run_atomic(
    args: list[str], cwd: Path, env: dict[str, str], script: Path | None = None, stdin: bytes = b""
) -> tuple[int, str, str]:
    run_env = dict(env)
    if script is not None:
        run_env["ATOMIC_SCRIPT"] = str(script)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "atomic", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        cwd=str(cwd), env=run_env,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin), 30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_print_mode_prints_the_answer(work_dir: Path, rpc_env: dict[str, str], write_script: ScriptWriter) -> None:
    script = write_script([{"text": "The answer is 4."}])
    code, out, err = await run_atomic(["-p", "what is 2+2?", "--provider", "scripted"], work_dir, rpc_env, script)
    assert code == 0, err
    assert out == "The answer is 4.\n"


async def test_print_mode_echo_when_script_runs_out(
    work_dir: Path, rpc_env: dict[str, str], write_script: ScriptWriter
) -> None:
    code, out, _err = await run_atomic(["-p", "hi", "--provider", "scripted"], work_dir, rpc_env, write_script([]))
    assert code == 0
    assert out.strip() == "You said: hi"


async def test_print_mode_error_response_exits_nonzero(
    work_dir: Path, rpc_env: dict[str, str], write_script: ScriptWriter
) -> None:
    script = write_script([{"error": "401 invalid api key", "kind": "auth", "status": 401}])
    code, out, err = await run_atomic(["-p", "hi", "--provider", "scripted"], work_dir, rpc_env, script)
    assert code != 0
    assert "401 invalid api key" in err
    assert out.strip() == ""


async def test_json_mode_prints_header_then_events(
    work_dir: Path, rpc_env: dict[str, str], write_script: ScriptWriter
) -> None:
    script = write_script([{"text": "json reply"}])
    code, out, err = await run_atomic(
        ["--mode", "json", "--provider", "scripted", "hello json"], work_dir, rpc_env, script
    )
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    head = lines[0]
    assert head["type"] == "session" and head["version"] == 3 and head["id"]
    types = [line["type"] for line in lines[1:]]
    assert types[0] == "agent_start" and types[-1] == "agent_settled"
    assert [t for t in types if t != "message_update"] == [
        "agent_start", "turn_start", "message_start", "message_end", "message_start", "message_end",
        "turn_end", "agent_end", "agent_settled",
    ]
    assert lines[-2]["messages"][-1]["content"] == [{"type": "text", "text": "json reply"}]


async def test_rpc_mode_resume_is_an_error_pointing_at_session(work_dir: Path, rpc_env: dict[str, str]) -> None:
    code, out, err = await run_atomic(["--mode", "rpc", "--resume", "--provider", "scripted"], work_dir, rpc_env)
    assert code != 0
    assert "--session" in err
    assert out == ""


async def test_rpc_mode_unknown_session_is_an_error(work_dir: Path, rpc_env: dict[str, str]) -> None:
    code, _out, err = await run_atomic(
        ["--mode", "rpc", "--session", "does-not-exist", "--provider", "scripted"], work_dir, rpc_env
    )
    assert code != 0 and "does-not-exist" in err
