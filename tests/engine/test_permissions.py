"""Permission modes: which tool calls wait for the user's approval, and what a refusal looks like."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.messages import ToolResultMessage
from atomic.core.permissions import ApprovalRequest, Decision, command_prefix, needs_approval


def bash_call(command: str, call_id: str) -> dict[str, object]:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}, "id": call_id}]}


def write_call(path: str, call_id: str) -> dict[str, object]:
    return {"toolCalls": [{"name": "write", "arguments": {"path": path, "content": "x\n"}, "id": call_id}]}


class ScriptedApprover:
    """Answers approval requests from a list, recording what was asked."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)


def tool_results(session) -> list[ToolResultMessage]:
    return [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]


def result_text(result: ToolResultMessage) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


@pytest.mark.parametrize(
    ("mode", "tool", "asked"),
    [
        ("ask", "bash", True), ("ask", "write", True), ("ask", "edit", True), ("ask", "mcp__git__log", True),
        ("ask", "read", False), ("ask", "grep", False), ("ask", "ls", False),
        ("accept-edits", "bash", True), ("accept-edits", "mcp__git__log", True),
        ("accept-edits", "write", False), ("accept-edits", "edit", False),
        ("yolo", "bash", False), ("yolo", "mcp__git__log", False),
    ],
)
def test_which_tools_need_approval(mode: str, tool: str, asked: bool) -> None:
    assert needs_approval(mode, tool) is asked  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("command", "prefix"),
    [
        ("git status --short", "git status"), ("ls -la", "ls"), ("npm test", "npm test"), ("touch one.txt", "touch"),
        ("rm -rf build && make", None), ("cat a | grep b", None), ("echo $(whoami)", None),
        ("echo hi > out.txt", None), ("", None),
    ],
)
def test_remembered_command_prefix(command: str, prefix: str | None) -> None:
    assert command_prefix(command) == prefix


async def test_rejected_bash_never_runs_and_the_model_sees_why(make_session, workdir: Path) -> None:
    session, _provider, _rec = await make_session(
        [bash_call("touch made.txt", "c1"), {"text": "ok"}], permission_mode="ask"
    )
    approver = ScriptedApprover("reject_once")
    session.permissions.approver = approver
    await session.prompt("make a file")
    await session.wait_idle()
    assert not (workdir / "made.txt").exists()
    [result] = tool_results(session)
    assert result.is_error and "rejected" in result_text(result) and "touch made.txt" in result_text(result)
    assert approver.asked[0].title == "Run `touch made.txt`" and approver.asked[0].kind == "execute"


async def test_allow_always_remembers_the_command_prefix(make_session, workdir: Path) -> None:
    script = [bash_call("touch one.txt", "c1"), bash_call("touch two.txt", "c2"), bash_call("rm one.txt", "c3"),
              {"text": "done"}]
    session, _provider, _rec = await make_session(script, permission_mode="ask")
    approver = ScriptedApprover("allow_always", "reject_once")
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    assert (workdir / "one.txt").exists() and (workdir / "two.txt").exists()
    # `touch` was remembered; `rm` is a different program and was asked about (and refused).
    assert [r.args["command"] for r in approver.asked] == ["touch one.txt", "rm one.txt"]
    assert [r.is_error for r in tool_results(session)] == [False, False, True]


async def test_accept_edits_writes_without_asking(make_session, workdir: Path) -> None:
    session, _provider, _rec = await make_session(
        [write_call("notes.txt", "w1"), {"text": "written"}], permission_mode="accept-edits"
    )
    approver = ScriptedApprover()
    session.permissions.approver = approver
    await session.prompt("write it")
    await session.wait_idle()
    assert (workdir / "notes.txt").read_text() == "x\n" and approver.asked == []


async def test_ask_without_an_approver_refuses_with_a_clear_reason(make_session, workdir: Path) -> None:
    session, _provider, _rec = await make_session(
        [write_call("notes.txt", "w1"), {"text": "ok"}], permission_mode="ask"
    )
    await session.prompt("write it")
    await session.wait_idle()
    assert not (workdir / "notes.txt").exists()
    [result] = tool_results(session)
    assert "needs approval (permission mode ask)" in result_text(result)


async def test_mode_comes_from_flag_then_setting_then_frontend_default(make_session, agent_dir: Path) -> None:
    session, _p, _r = await make_session([])
    assert session.permissions.mode == "yolo"
    session_acp, _p, _r = await make_session([], default_permission_mode="ask")
    assert session_acp.permissions.mode == "ask"
    (agent_dir / "settings.json").write_text('{"permissionMode": "accept-edits"}')
    from_setting, _p, _r = await make_session([], default_permission_mode="ask")
    assert from_setting.permissions.mode == "accept-edits"
    from_flag, _p, _r = await make_session([], permission_mode="yolo", default_permission_mode="ask")
    assert from_flag.permissions.mode == "yolo"


async def test_switching_mode_emits_and_persists_on_request(make_session, agent_dir: Path) -> None:
    session, _p, rec = await make_session([])
    session.permission_modes.set_mode("accept-edits", persist=True)
    assert rec.of("permission_mode_changed") == [{"type": "permission_mode_changed", "mode": "accept-edits"}]
    assert '"permissionMode": "accept-edits"' in (agent_dir / "settings.json").read_text()
    with pytest.raises(ValueError, match="Unknown permission mode"):
        session.permission_modes.set_mode("sometimes")


async def test_a_no_with_a_reason_tells_the_model_why(make_session, workdir: Path) -> None:
    from atomic.core.permissions import ApprovalAnswer

    async def approver(request: ApprovalRequest) -> ApprovalAnswer:
        return ApprovalAnswer("reject_once", "  use the trash folder instead ")

    session, _provider, _rec = await make_session([write_call("x.txt", "c1"), {"text": "ok"}], permission_mode="ask")
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    result = tool_results(session)[0]
    assert result.is_error
    assert result_text(result).endswith("The user says: use the trash folder instead")
    assert not (workdir / "x.txt").exists()
