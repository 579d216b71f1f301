"""Plan mode: the model reads and plans; writes, edits, MCP tools and any command not on the read-only
list are refused (the attacker tries the usual ways round), and exit_plan asks the user to approve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.run_config import tool_context
from atomic.core.messages import ToolResultMessage
from tests.engine.test_permissions import ScriptedApprover


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    return {"toolCalls": [{"name": name, "arguments": arguments, "id": call_id}]}


def results(session: Any) -> list[ToolResultMessage]:
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


def text(result: ToolResultMessage) -> str:
    return "".join(b.text for b in result.content if b.type == "text")


async def run_one(make_session: Any, response: dict[str, Any]) -> tuple[Any, ToolResultMessage]:
    session, _provider, _recorder = await make_session([response, {"text": "ok"}], permission_mode="plan")
    await session.prompt("plan it")
    await session.wait_idle()
    return session, results(session)[-1]


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "git status; rm -rf build",
        "ls $(rm -rf build)",
        "find . -delete",
        "git branch attacker",
        "env rm -rf build",
        "sed -i s/a/b/ notes.txt",
        "echo hi > notes.txt",
        "git diff --output=notes.txt",
        "python3 -c 'import os'",
    ],
)
async def test_commands_that_may_change_something_are_refused(make_session: Any, workdir: Path, command: str) -> None:
    (workdir / "build").mkdir()
    (workdir / "notes.txt").write_text("a\n")
    _session, result = await run_one(make_session, call("bash", "b1", command=command))
    assert result.is_error and "Plan mode" in text(result) and "exit_plan" in text(result)
    assert (workdir / "build").is_dir() and (workdir / "notes.txt").read_text() == "a\n"


@pytest.mark.parametrize("command", ["git status", "ls -la | wc -l", "grep -rn TODO .", "cat notes.txt && git log -1"])
async def test_read_only_commands_run_unasked(make_session: Any, workdir: Path, command: str) -> None:
    (workdir / "notes.txt").write_text("TODO: x\n")
    session, _provider, _recorder = await make_session([call("bash", "b1", command=command), {"text": "ok"}],
                                                       permission_mode="plan")
    approver = ScriptedApprover()
    session.permissions.approver = approver
    await session.prompt("look")
    await session.wait_idle()
    [result] = results(session)
    assert "Plan mode" not in text(result) and approver.asked == []


async def test_writes_edits_and_mcp_tools_are_refused(make_session: Any, workdir: Path) -> None:
    (workdir / "a.txt").write_text("one\n")
    for response in (
        call("write", "w1", path="new.txt", content="x"),
        call("edit", "e1", path="a.txt", edits=[{"oldText": "one", "newText": "two"}]),
    ):
        _session, result = await run_one(make_session, response)
        assert result.is_error and "Plan mode" in text(result)
    assert not (workdir / "new.txt").exists() and (workdir / "a.txt").read_text() == "one\n"


async def test_reading_and_the_todo_list_work_while_planning(make_session: Any, workdir: Path) -> None:
    (workdir / "a.txt").write_text("content\n")
    _session, result = await run_one(make_session, call("read", "r1", path="a.txt"))
    assert not result.is_error and "content" in text(result)
    _session, result = await run_one(make_session, call("todo", "t1", todos=[{"content": "x", "status": "pending"}]))
    assert not result.is_error


async def test_exit_plan_is_offered_only_while_planning(make_session: Any) -> None:
    session, provider, _recorder = await make_session([{"text": "a"}, {"text": "b"}], permission_mode="plan")
    await session.prompt("one")
    await session.wait_idle()
    assert "exit_plan" in {t.name for t in provider.requests[0].tools}
    assert "You are in plan mode" in provider.requests[0].system_prompt
    session.permission_modes.set_mode("ask")
    await session.prompt("two")
    await session.wait_idle()
    assert "exit_plan" not in {t.name for t in provider.requests[1].tools}
    assert "plan mode" not in provider.requests[1].system_prompt


PLAN = "## Plan\n1. Change parse()\n2. Run the tests"


@pytest.mark.parametrize(
    ("answer", "mode_after", "approved"),
    [("allow_once", "ask", True), ("allow_always", "accept-edits", True), ("reject_once", "plan", False)],
)
async def test_exit_plan_asks_and_switches_the_mode(make_session: Any, answer: Any, mode_after: str, approved: bool) -> None:
    session, _provider, recorder = await make_session([call("exit_plan", "p1", plan=PLAN), {"text": "next"}])
    session.permission_modes.set_mode("ask")
    session.permission_modes.set_mode("plan")
    approver = ScriptedApprover(answer)
    session.permissions.approver = approver
    await session.prompt("plan the fix")
    await session.wait_idle()
    [asked] = approver.asked
    assert asked.tool_name == "exit_plan" and asked.args["plan"] == PLAN and "Approve this plan" in asked.title
    assert session.permissions.mode == mode_after
    [result] = results(session)
    assert result.details["approved"] is approved
    if approved:
        assert recorder.of("permission_mode_changed")[-1]["mode"] == mode_after


async def test_exit_plan_outside_plan_mode_is_a_tool_error(make_session: Any) -> None:
    session, _provider, _recorder = await make_session([call("exit_plan", "p1", plan=PLAN), {"text": "ok"}],
                                                       permission_mode="yolo")
    await session.prompt("x")
    await session.wait_idle()
    [result] = results(session)
    assert result.is_error and "not found" in text(result)  # not even offered outside plan mode
    assert session.permissions.mode == "yolo"


async def test_planning_commands_run_in_a_read_only_sandbox(make_session: Any, workdir: Path) -> None:
    session, _provider, _recorder = await make_session([], permission_mode="plan", sandbox_mode="workspace-write")
    planning = tool_context(session, lambda _out: None).sandbox
    # (The test folders live in the temp folder, which even read-only leaves writable: the mode is the check.)
    assert planning is not None and planning.policy.mode == "read-only"
    session.permission_modes.set_mode("ask")
    working = tool_context(session, lambda _out: None).sandbox
    assert working is not None and working.policy.mode == "workspace-write"
