"""A server's resources and prompts: @server:uri mentions, read_mcp_resource, /mcp__server__prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.engine.errors import PromptRejected
from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.mcp.catalog import McpPromptArgument, McpPromptInfo, prompt_arguments
from atomic.core.messages import ToolResultMessage, UserMessage
from atomic.core.providers.scripted import ScriptedProvider

from .conftest import tiny, wait_for


async def open_session(tmp_path: Path, responses: list[dict[str, object]]):  # noqa: ANN201
    session = await create_session(SessionOptions(
        cwd=tmp_path, provider="scripted", scripted=ScriptedProvider(responses), no_session=True,
        mcp_servers=[tiny()],
    ))
    assert session.mcp is not None
    session.mcp.limits = type(session.mcp.limits)(prompt_wait_s=60, startup_timeout_s=60)
    await session.mcp.wait_ready(60)
    return session


def user_texts(session) -> list[str]:  # noqa: ANN001
    out = []
    for m in session.context_messages():
        if isinstance(m, UserMessage):
            out.append(m.content if isinstance(m.content, str) else "".join(
                b.text for b in m.content if b.type == "text"))
    return out


async def test_a_mention_attaches_the_resource_and_the_model_can_read_one(tmp_path: Path) -> None:
    session = await open_session(tmp_path, [
        {"toolCalls": [{"name": "read_mcp_resource", "id": "r1",
                        "arguments": {"server": "tiny", "uri": "tiny://notes/today"}}]},
        {"text": "noted"},
    ])
    try:
        assert session.mcp is not None
        names = [t.name for t in session.mcp.request_tools(200_000)]
        assert "read_mcp_resource" in names
        assert "tiny://notes/today" in session.mcp.find_tool("read_mcp_resource").description  # type: ignore[union-attr]
        await session.prompt("what is in @tiny:tiny://notes/today?")
        await session.wait_idle()
        [text] = user_texts(session)
        assert text.startswith("what is in @tiny:tiny://notes/today?")
        assert '<resource server="tiny" uri="tiny://notes/today">\nbuy milk\ncall the plumber\n</resource>' in text
        [result] = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
        assert not result.is_error and "call the plumber" in result.content[0].text
    finally:
        await session.shutdown()


async def test_a_server_prompt_is_a_slash_command(tmp_path: Path) -> None:
    session = await open_session(tmp_path, [{"text": "reviewed"}])
    try:
        assert session.mcp is not None
        commands = {c.name: c for c in session.mcp.commands()}
        assert commands["mcp__tiny__review"].source == "mcp"
        assert "<path> [focus]" in (commands["mcp__tiny__review"].description or "")
        await session.prompt("/mcp__tiny__review src/app.py security holes")
        await session.wait_idle()
        assert user_texts(session) == ["Please review src/app.py, looking for security holes."]
        with pytest.raises(PromptRejected, match="missing path"):
            await session.prompt("/mcp__tiny__review")
    finally:
        await session.shutdown()


def test_prompt_arguments_by_name_or_position() -> None:
    prompt = McpPromptInfo("p", "", (McpPromptArgument("path", "", True), McpPromptArgument("focus", "", False)))
    assert prompt_arguments(prompt, "a.py") == {"path": "a.py"}
    assert prompt_arguments(prompt, "focus=speed a.py") == {"path": "a.py", "focus": "speed"}
    assert prompt_arguments(prompt, '"my file.py" all of it') == {"path": "my file.py", "focus": "all of it"}
    with pytest.raises(ValueError, match="usage: <path> \\[focus\\]"):
        prompt_arguments(prompt, "")


async def test_no_resource_tool_without_resources(tmp_path: Path) -> None:
    from atomic.core.mcp.config import McpConfigResult
    from atomic.core.mcp.manager import McpManager

    manager = McpManager(McpConfigResult([tiny("t", "--many", "0")], [], [], []), cwd=tmp_path, agent_dir=tmp_path)
    manager.start()
    try:
        await wait_for(lambda: manager.connections["t"].settled, 60)
        manager.connections["t"].resources = []
        assert "read_mcp_resource" not in [t.name for t in manager.request_tools(200_000)]
        assert manager.find_tool("read_mcp_resource") is None
    finally:
        await manager.shutdown()
