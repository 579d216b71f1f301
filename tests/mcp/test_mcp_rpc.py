"""MCP in `atomic --mode rpc` (a real subprocess): get_mcp_servers, tool calls, stderr notices, trust."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.rpc.helpers import RecordingClient

from .conftest import SERVER, wait_for


def rpc_env(agent_dir: Path, script: list[dict[str, object]], tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ATOMIC_CODING_AGENT_DIR"] = str(agent_dir)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    env["ATOMIC_SCRIPT"] = str(path)
    return env


async def test_rpc_lists_servers_calls_tools_and_reports_failures_on_stderr(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "tiny": {"command": sys.executable, "args": [str(SERVER)]},
        "broken": {"command": "/no/such/mcp-server-binary"},
    }}))
    (cwd / ".mcp.json").write_text(json.dumps({"mcpServers": {"projsrv": {"command": "echo"}}}))
    # Importing the SDK in the server can take seconds on a loaded machine: let the prompt wait for it.
    (agent_dir / "settings.json").write_text(json.dumps({"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}))
    script = [{"toolCalls": [{"name": "mcp__tiny__add", "arguments": {"a": 1, "b": 2}}]}, {"text": "three"}]
    client = RecordingClient(["--provider", "scripted", "--no-session"], cwd=cwd,
                             env=rpc_env(agent_dir, script, tmp_path))
    await client.start()
    try:
        # get_state answers while the servers are still connecting.
        state = await client.get_state()
        assert state["isStreaming"] is False
        early = await client.call("get_mcp_servers")
        assert {s["name"] for s in early["servers"]} == {"tiny", "broken", "projsrv"}
        assert early["projectTrust"] == {"trusted": False, "source": "undecided", "cwd": str(cwd.resolve())}

        end = await client.run_prompt("add please", timeout=90)
        assert end["type"] == "agent_end"
        done = [e for e in client.events if e["type"] == "tool_execution_end"]
        assert done[0]["toolName"] == "mcp__tiny__add" and done[0]["isError"] is False
        assert done[0]["result"]["content"][0]["text"] == "3"

        servers = {s["name"]: s for s in (await client.call("get_mcp_servers"))["servers"]}
        assert servers["tiny"]["status"] == "connected" and servers["tiny"]["source"] == "user"
        assert "mcp__tiny__add" in servers["tiny"]["tools"] and servers["tiny"]["serverName"] == "tiny"
        assert servers["broken"]["status"] == "failed" and "mcp-server-binary" in servers["broken"]["error"]
        assert servers["projsrv"]["status"] == "untrusted" and servers["projsrv"]["tools"] == []
        log = Path(servers["tiny"]["logPath"])

        await wait_for(lambda: any("broken failed to start" in line for line in client.stderr_lines), 10)
        broken_lines = [line for line in client.stderr_lines if "broken" in line]
        assert len(broken_lines) == 1
        untrusted = [line for line in client.stderr_lines if "not trusted" in line]
        assert len(untrusted) == 1 and "projsrv" in untrusted[0]
    finally:
        await client.close()
    # The server's own stderr went to its log file, not to Atomic's stderr.
    assert "tiny: ready" in log.read_text()
    assert not any("tiny: ready" in line for line in client.stderr_lines)


async def test_rpc_prompt_is_not_blocked_by_a_hanging_server(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "hang": {"command": sys.executable, "args": [str(SERVER), "--garbage"]},
    }}))
    (agent_dir / "settings.json").write_text(json.dumps({"mcp": {"promptWaitMs": 500}}))
    client = RecordingClient(["--provider", "scripted", "--no-session"], cwd=cwd,
                             env=rpc_env(agent_dir, [{"text": "answered anyway"}], tmp_path))
    await client.start()
    try:
        await client.run_prompt("hello", timeout=30)
        assert await client.get_last_assistant_text() == "answered anyway"
        servers = (await client.call("get_mcp_servers"))["servers"]
        assert servers[0]["status"] == "starting"
        await asyncio.sleep(0)
    finally:
        await client.close()


async def test_print_mode_names_each_failed_server_once_on_stderr(tmp_path: Path, agent_dir: Path) -> None:
    from tests.rpc.test_cli_modes import run_atomic

    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "gone": {"command": "/no/such/server-one"},
        "dead": {"command": sys.executable, "args": [str(SERVER), "--exit"]},
    }}))
    env = rpc_env(agent_dir, [{"text": "fine"}], tmp_path)
    code, out, err = await run_atomic(["-p", "hi", "--provider", "scripted", "--no-session"], cwd, env)
    assert code == 0, err
    assert out == "fine\n"
    lines = err.strip().splitlines()
    assert len([line for line in lines if "gone failed to start" in line]) == 1
    [dead] = [line for line in lines if "dead failed to start" in line]
    # The server's stderr never goes to Atomic's own; its last line is quoted in the failure only.
    assert "exited with code 2: tiny: exiting on purpose" in dead
    assert [line for line in lines if "tiny: exiting on purpose" in line] == [dead]


async def test_reconnect_mcp_server_restarts_a_crashed_server(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "tiny": {"command": sys.executable, "args": [str(SERVER)]},
    }}))
    (agent_dir / "settings.json").write_text(json.dumps({"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}))
    script = [{"toolCalls": [{"name": "mcp__tiny__exit_soon", "arguments": {"delay": 0.1}}]}, {"text": "bye"}]
    client = RecordingClient(["--provider", "scripted", "--no-session"], cwd=cwd,
                             env=rpc_env(agent_dir, script, tmp_path))
    await client.start()
    try:
        await client.run_prompt("leave", timeout=90)

        async def status() -> dict[str, object]:
            return dict((await client.call("get_mcp_servers"))["servers"][0])

        for _ in range(200):
            if (await status())["status"] == "crashed":
                break
            await asyncio.sleep(0.05)
        crashed = await status()
        assert crashed["status"] == "crashed" and "exited with code 4" in str(crashed["error"])
        answer = await client.call("reconnect_mcp_server", name="tiny", timeout=90)
        assert answer["server"]["status"] == "connected" and answer["server"]["restarts"] == 1
        missing = await client.request({"type": "reconnect_mcp_server", "name": "nope"})
        assert missing["success"] is False and "nope" in missing["error"]
        bad = await client.request({"type": "reconnect_mcp_server"})
        assert bad["success"] is False
    finally:
        await client.close()


async def test_a_server_question_is_asked_through_extension_ui_requests(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {
        "tiny": {"command": sys.executable, "args": [str(SERVER)]},
    }}))
    (agent_dir / "settings.json").write_text(json.dumps({"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}))
    script = [{"toolCalls": [{"name": "mcp__tiny__ask", "arguments": {}}]}, {"text": "thanks"}]
    client = RecordingClient(["--provider", "scripted", "--no-session"], cwd=cwd,
                             env=rpc_env(agent_dir, script, tmp_path))
    await client.start()
    try:
        await client.prompt("ask me")
        answers = [("input", {"value": "Ada"}), ("input", {"value": "36"}), ("select", {"value": "green"}),
                   ("confirm", {"confirmed": False})]
        after = 0
        for method, fields in answers:
            request = await client.wait_for("extension_ui_request", 90, lambda e, m=method: e["method"] == m,
                                            after=after)
            after = client.events.index(request) + 1
            assert request["title"].startswith("MCP server tiny asks: Who are you?")
            client.send_raw(json.dumps({"type": "extension_ui_response", "id": request["id"], **fields}) + "\n")
        end = await client.wait_for("tool_execution_end", 90)
        assert end["result"]["content"][0]["text"] == "accept name=Ada age=36 color=green subscribe=False"
    finally:
        await client.close()
