"""The shipped example extension works end to end on the scripted model."""

from __future__ import annotations

from pathlib import Path

from atomic.core.messages import ToolResultMessage
from tests.conftest import ROOT
from tests.support import Recorder

EXAMPLE = ROOT / "examples" / "extensions" / "todo_guard.py"


def results(session) -> list[ToolResultMessage]:
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


async def test_example_tool_command_and_guard(make_session, workdir: Path) -> None:
    script = [
        {
            "toolCalls": [
                {"name": "todo", "arguments": {"action": "add", "text": "write docs"}},
                {"name": "bash", "arguments": {"command": "rm -rf / --no-preserve-root"}},
            ]
        },
        {"toolCalls": [{"name": "todo", "arguments": {"action": "done", "id": 1}}]},
        {"text": "done"},
    ]
    session, provider, _ = await make_session(script, extensions=[str(EXAMPLE)])
    rec = Recorder(session)
    assert "- todo: Track multi-step work in a todo list" in session.toolset.system_prompt
    assert session.toolset.tools["todo"].parameters["properties"]["action"]["enum"] == ["add", "list", "done"]
    await session.prompt("plan the work")
    await session.wait_idle()

    added, blocked, done = results(session)
    assert added.content[0].text == "1. [ ] write docs"
    assert blocked.is_error and blocked.content[0].text.startswith("Blocked by todo_guard")
    assert done.content[0].text == "1. [x] write docs"
    assert rec.of("extension_error") == []

    await session.prompt("/todos")
    assert rec.of("extension_ui_request")[-1]["message"] == "1. [x] write docs"
    assert session.extensions.complete_command("todos", "c") == ["clear"]
    assert provider.requests and len(provider.requests) == 3  # the command did not call the model

    # The list is stored in the session file: a fresh session on the same file restores it.
    from atomic.core.engine.factory import create_session
    from atomic.core.engine.options import SessionOptions

    assert session.store.path is not None
    reopened = await create_session(
        SessionOptions(cwd=workdir, scripted=provider, session=str(session.store.path), extensions=[str(EXAMPLE)])
    )
    reopened_rec = Recorder(reopened)
    await reopened.prompt("/todos")
    assert reopened_rec.of("extension_ui_request")[-1]["message"] == "1. [x] write docs"
    await reopened.shutdown()


async def test_example_flag_limits_open_todos(make_session) -> None:
    script = [
        {
            "toolCalls": [
                {"name": "todo", "arguments": {"action": "add", "text": "one"}},
                {"name": "todo", "arguments": {"action": "add", "text": "two"}},
            ]
        },
        {"text": "ok"},
    ]
    session, _, _ = await make_session(script, extensions=[str(EXAMPLE)], extension_flags={"todo-limit": "1"})
    await session.prompt("add two")
    await session.wait_idle()
    first, second = results(session)
    assert not first.is_error
    assert second.is_error and "Too many open todos" in second.content[0].text
