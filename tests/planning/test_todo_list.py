"""The `todo` tool: the list replaces itself, belongs to the branch, survives compaction, and reaches
RPC clients as `todo_update` events and in get_state."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.contract import Engine
from atomic.core.engine.options import SessionOptions
from atomic.core.messages import CustomMessage, ToolResultMessage
from atomic.core.tools.todo import parse_todos
from tests.rpc.inprocess import InProcessRpc


def todo_call(*items: tuple[str, str], call_id: str = "t1") -> dict[str, Any]:
    todos = [{"content": content, "status": status} for content, status in items]
    return {"toolCalls": [{"name": "todo", "arguments": {"todos": todos}, "id": call_id}]}


PLAN = todo_call(("read the code", "completed"), ("fix the bug", "in_progress"), ("run the tests", "pending"))


def test_the_list_rejects_two_items_in_progress_and_unknown_statuses() -> None:
    with pytest.raises(ValueError, match="at most one"):
        parse_todos([{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}])
    with pytest.raises(ValueError, match="status"):
        parse_todos([{"content": "a", "status": "doing"}])
    with pytest.raises(ValueError, match="priority"):
        parse_todos([{"content": "a", "status": "pending", "priority": "urgent"}])


async def test_todo_calls_update_the_state_and_emit_events(make_session: Any) -> None:
    session, _provider, recorder = await make_session([PLAN, {"text": "working on it"}])
    await session.prompt("fix the bug")
    await session.wait_idle()
    updates = recorder.of("todo_update")
    assert [u["todos"] for u in updates] == [
        [
            {"content": "read the code", "status": "completed"},
            {"content": "fix the bug", "status": "in_progress"},
            {"content": "run the tests", "status": "pending"},
        ]
    ]
    state = Engine(session, SessionOptions(cwd=session.cwd)).state()
    assert [item.content for item in state.todos] == ["read the code", "fix the bug", "run the tests"]


async def test_a_bad_list_is_a_tool_error_and_changes_nothing(make_session: Any) -> None:
    bad = {"toolCalls": [{"name": "todo", "arguments": {"todos": [
        {"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}, "id": "t2"}]}
    session, _provider, recorder = await make_session([PLAN, {"text": "ok"}, bad, {"text": "hm"}])
    await session.prompt("one")
    await session.wait_idle()
    await session.prompt("two")
    await session.wait_idle()
    results = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert results[-1].is_error and "at most one" in results[-1].content[0].text
    assert len(recorder.of("todo_update")) == 1
    assert [t.content for t in session.todos.current(session.context_items)][1] == "fix the bug"


async def test_the_list_follows_the_branch(make_session: Any) -> None:
    second = todo_call(("only this", "pending"), call_id="t3")
    session, _provider, recorder = await make_session([PLAN, {"text": "a"}, second, {"text": "b"}])
    await session.prompt("first")
    await session.wait_idle()
    await session.prompt("second")
    await session.wait_idle()
    assert [t.content for t in session.todos.current(session.context_items)] == ["only this"]
    users = [e for e in session.store.path_to() if e.type == "message" and e.data["message"]["role"] == "user"]
    # Back to before the second prompt: the first list is the branch's list again.
    await session.files.navigate_to(users[1].parent_id)
    assert [t.content for t in session.todos.current(session.context_items)] == [
        "read the code", "fix the bug", "run the tests"
    ]
    assert recorder.of("todo_update")[-1]["todos"][0]["content"] == "read the code"


async def test_the_list_comes_back_on_resume(tmp_path: Path, workdir: Path) -> None:
    rpc = await InProcessRpc.start(workdir, [PLAN, {"text": "done"}], session_dir=str(tmp_path / "sessions"))
    await rpc.send('{"type":"prompt","message":"plan it"}')
    events = [o for o in rpc.objects() if o.get("type") == "todo_update"]
    assert events and events[0]["todos"][1] == {"content": "fix the bug", "status": "in_progress"}
    await rpc.send('{"id":"s","type":"get_state"}')
    state = next(o for o in rpc.responses() if o.get("id") == "s")["data"]
    assert [t["status"] for t in state["todos"]] == ["completed", "in_progress", "pending"]
    session_file = state["sessionFile"]
    await rpc.close()

    again = await InProcessRpc.start(workdir, [], session=session_file, session_dir=str(tmp_path / "sessions"))
    await again.send('{"id":"s2","type":"get_state"}')
    state = next(o for o in again.responses() if o.get("id") == "s2")["data"]
    assert [t["content"] for t in state["todos"]] == ["read the code", "fix the bug", "run the tests"]
    await again.close()


async def test_the_list_survives_a_compaction(make_session: Any) -> None:
    script = [PLAN, {"text": "step one done " + "x" * 400}]
    script += [{"text": f"reply {i} " + "y" * 400} for i in range(6)]
    session, _provider, _recorder = await make_session(script)
    await session.prompt("plan")
    await session.wait_idle()
    for i in range(6):
        await session.prompt(f"more {i} " + "z" * 400)
        await session.wait_idle()
    await session.compact()
    messages = session.context_messages()
    assert not any(isinstance(m, ToolResultMessage) for m in messages), "the compaction cut the todo result"
    carried = [m for m in messages if isinstance(m, CustomMessage) and m.custom_type == "todo_list"]
    assert carried and "[~] fix the bug" in str(carried[0].content)
    assert [t.content for t in session.todos.current(session.context_items)][2] == "run the tests"


async def test_the_model_is_told_when_to_use_the_list(make_session: Any) -> None:
    session, provider, _recorder = await make_session([{"text": "hi"}])
    await session.prompt("hello")
    await session.wait_idle()
    request = provider.requests[0]
    todo = next(t for t in request.tools if t.name == "todo")
    assert "three or more" in todo.description and "single small request" in todo.description
    assert json.dumps(todo.parameters["properties"]["todos"]["items"]["properties"]["status"]["enum"]) == (
        '["pending", "in_progress", "completed"]'
    )


async def test_the_system_prompt_says_when_to_keep_a_list(make_session: Any) -> None:
    session, _provider, _recorder = await make_session([])
    assert "three or more steps, keep a to-do list with the todo tool" in session.toolset.system_prompt
    without, _p, _r = await make_session([], tools=["read", "bash"])
    assert "todo tool" not in without.toolset.system_prompt
