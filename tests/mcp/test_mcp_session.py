"""MCP tools in a real engine session: offered to the model, called through the agent loop, trust-gated."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import ToolResultMessage
from atomic.core.providers.scripted import ScriptedProvider

from .conftest import SERVER


def server_entry(*args: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(SERVER), *args], "env": {"TINY_MARK": "${TINY_TEST_MARK:-x}"}}


def write_servers(path: Path, servers: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers}))


def tool_results(session) -> list[ToolResultMessage]:  # noqa: ANN001
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


async def test_the_first_prompt_waits_for_servers_and_calls_their_tools(
    tmp_path: Path, agent_dir: Path, monkeypatch
) -> None:
    monkeypatch.setenv("TINY_TEST_MARK", "expanded")
    write_servers(agent_dir / "mcp.json", {"tiny": server_entry()})
    # The server's SDK import can take seconds on a loaded machine; the wait is what is tested, not its length.
    (agent_dir / "settings.json").write_text('{"mcp": {"promptWaitMs": 60000, "startupTimeoutMs": 60000}}')
    provider = ScriptedProvider([
        {"toolCalls": [{"name": "mcp__tiny__add", "arguments": {"a": 20, "b": 22}},
                       {"name": "mcp__tiny__echo", "arguments": {"text": "hello"}}]},
        {"text": "done"},
    ])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    try:
        assert session.mcp is not None
        # Still connecting in the background: creating the session did not wait for it.
        assert session.mcp.connections["tiny"].status == "starting"
        await session.prompt("use the tools")
        await session.wait_idle()
        offered = [t.name for t in provider.requests[0].tools]
        assert "mcp__tiny__add" in offered and "read" in offered
        results = tool_results(session)
        assert [r.content[0].text for r in results][0] == "42"
        assert "hello [expanded]" in results[1].content[0].text
        assert not any(r.is_error for r in results)
        # The system prompt does not list MCP tools (it stays stable while servers come and go).
        assert "mcp__tiny__add" not in session.toolset.system_prompt
    finally:
        await session.shutdown()
    assert session.mcp.connections["tiny"].status == "stopped"


async def test_project_servers_start_only_in_a_trusted_project(tmp_path: Path, agent_dir: Path) -> None:
    write_servers(tmp_path / ".mcp.json", {"proj": server_entry()})
    untrusted = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([])))
    try:
        assert untrusted.trust.decision.undecided
        assert untrusted.mcp is not None and untrusted.mcp.connections == {}
        assert [(s.name, s.status) for s in untrusted.mcp.states()] == [("proj", "untrusted")]
        # Announced once with the rest of the project (engine/project_trust.py), not by the MCP manager.
        assert untrusted.mcp.pending_notices() == []
        notice = untrusted.trust.untrusted_notice()
        assert notice is not None and "MCP: proj" in notice and "--approve" in notice
    finally:
        await untrusted.shutdown()

    refused = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), approve=False))
    try:
        assert refused.mcp is not None and refused.mcp.connections == {}
        assert refused.trust.untrusted_notice() is None  # an explicit "no" is not announced
    finally:
        await refused.shutdown()

    approved = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), approve=True))
    try:
        assert approved.mcp is not None
        await approved.mcp.wait_ready(60)
        assert approved.mcp.connections["proj"].status == "connected"
    finally:
        await approved.shutdown()


async def test_trust_comes_from_the_users_settings_never_the_projects(tmp_path: Path, agent_dir: Path) -> None:
    write_servers(tmp_path / ".mcp.json", {"proj": server_entry()})
    (tmp_path / ".atomic").mkdir()
    (tmp_path / ".atomic" / "settings.json").write_text(
        json.dumps({"defaultProjectTrust": "always", "enableAllProjectMcpServers": True})
    )
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([])))
    try:
        assert not session.trust.decision.trusted
        assert session.mcp is not None and session.mcp.connections == {}
    finally:
        await session.shutdown()
    (agent_dir / "settings.json").write_text(json.dumps({"defaultProjectTrust": "always"}))
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([])))
    try:
        assert session.trust.decision.trusted
        assert session.mcp is not None and "proj" in session.mcp.connections
    finally:
        await session.shutdown()


async def test_many_tools_are_loaded_on_demand_through_the_search_tool(tmp_path: Path, agent_dir: Path) -> None:
    write_servers(agent_dir / "mcp.json", {"big": server_entry("--many", "80")})
    provider = ScriptedProvider([
        {"toolCalls": [{"name": "mcp_tool_search", "arguments": {"query": "bulk tool number 7"}}]},
        {"toolCalls": [{"name": "mcp__big__bulk_7", "arguments": {"value": "v"}}]},
        {"text": "done"},
    ])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    try:
        await session.prompt("find a bulk tool")
        await session.wait_idle()
        first = [t.name for t in provider.requests[0].tools]
        assert "mcp_tool_search" in first
        assert not any(name.startswith("mcp__big__") for name in first)
        found = tool_results(session)[0]
        assert not found.is_error and "mcp__big__bulk_7" in found.content[0].text
        assert '"input_schema"' in found.content[0].text
        second = [t.name for t in provider.requests[1].tools]
        assert "mcp__big__bulk_7" in second and "mcp__big__bulk_8" not in second
        assert tool_results(session)[1].content[0].text == "bulk 7: v"
        assert session.mcp is not None and all(s.deferred for s in session.mcp.states())
    finally:
        await session.shutdown()


async def test_no_tools_means_no_mcp_and_nothing_configured_means_no_manager(
    tmp_path: Path, agent_dir: Path
) -> None:
    plain = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([])))
    assert plain.mcp is None
    await plain.shutdown()
    write_servers(agent_dir / "mcp.json", {"tiny": server_entry()})
    none = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]), tools=[]))
    assert none.mcp is None
    await none.shutdown()


async def test_a_missing_sdk_is_reported_clearly(tmp_path: Path, agent_dir: Path, monkeypatch) -> None:
    import atomic.core.mcp.manager as manager_module

    monkeypatch.setattr(manager_module, "sdk_installed", lambda: False)
    write_servers(agent_dir / "mcp.json", {"tiny": server_entry()})
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([{"text": "ok"}])))
    try:
        assert session.mcp is not None
        state = session.mcp.states()[0]
        assert state.status == "failed" and "pip install 'atomic-agent[mcp]'" in (state.error or "")
        assert any("atomic-agent[mcp]" in n for n in session.mcp.pending_notices())
        await session.prompt("hi")
        await session.wait_idle()
        assert last_assistant_text(session.context_messages()) == "ok"
    finally:
        await session.shutdown()


async def test_abort_cancels_a_running_mcp_call_and_the_server_stays_usable(
    tmp_path: Path, agent_dir: Path
) -> None:
    from .conftest import wait_for

    write_servers(agent_dir / "mcp.json", {"tiny": server_entry()})
    provider = ScriptedProvider([
        {"toolCalls": [{"name": "mcp__tiny__sleep", "arguments": {"seconds": 60}}]},
        {"toolCalls": [{"name": "mcp__tiny__add", "arguments": {"a": 2, "b": 3}}]},
        {"text": "done"},
    ])
    session = await create_session(SessionOptions(cwd=tmp_path, scripted=provider))
    started: list[str] = []
    session.subscribe(lambda e: started.append(e.type) if e.type == "tool_execution_start" else None)
    try:
        await session.prompt("sleep")
        await wait_for(lambda: bool(started), 60)
        await session.abort()
        [aborted] = tool_results(session)
        assert aborted.is_error and aborted.tool_name == "mcp__tiny__sleep"
        await session.prompt("add")
        await session.wait_idle()
        assert tool_results(session)[-1].content[0].text == "5"
        assert session.mcp is not None and session.mcp.connections["tiny"].restarts == 0
    finally:
        await session.shutdown()
