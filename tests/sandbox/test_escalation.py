"""`"sandbox": false`: the model asks to run one command outside the sandbox, and only a person may allow it.

The attacker here is the model: it asks for the escalation, tries it in yolo, and tries it where
nobody can answer. A refused escalation must run nothing, not even inside the sandbox.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.core.permissions import ApprovalRequest, Decision
from tests.rpc.test_cli_modes import run_atomic
from tests.sandbox.conftest import bash_calls, needs_sandbox, results

pytestmark = needs_sandbox


class Approver:
    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)


async def _run(make_session: Any, command: str, answers: tuple[Decision, ...], settings: dict[str, Any] | None = None,
               **options: Any) -> tuple[Approver, list[tuple[bool, str]]]:
    session, _provider, _rec = await make_session(bash_calls(command, sandbox=False), **options)
    if settings:
        session.settings_manager.update(settings)
    approver = Approver(*answers)
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    return approver, results(session)


async def test_an_approved_escalation_runs_outside_the_sandbox(make_session: Any, outside: Path) -> None:
    approver, found = await _run(make_session, f"echo out > {outside}/x.txt", ("allow_once",), permission_mode="ask")
    assert found == [(False, "(no output)")] and (outside / "x.txt").exists()
    [asked] = approver.asked
    assert "OUTSIDE the sandbox" in asked.title and asked.command_prefix is None


async def test_a_refused_escalation_runs_nothing(make_session: Any, workdir: Path) -> None:
    approver, found = await _run(make_session, "echo ran > inside.txt", ("reject_once",), permission_mode="ask")
    assert len(approver.asked) == 1 and found[0][0] is True and "Nothing was run" in found[0][1]
    assert not (workdir / "inside.txt").exists(), "not even inside the sandbox"


async def test_an_allowed_command_still_asks_before_leaving_the_sandbox(make_session: Any, outside: Path) -> None:
    session, _provider, _rec = await make_session(
        [
            {"toolCalls": [{"name": "bash", "arguments": {"command": "touch a.txt"}, "id": "c1"}]},
            {"toolCalls": [{"name": "bash", "arguments": {"command": f"touch {outside}/b.txt", "sandbox": False},
                            "id": "c2"}]},
            {"text": "done"},
        ],
        permission_mode="accept-edits",
    )
    approver = Approver("allow_always", "reject_once")
    session.permissions.approver = approver
    await session.prompt("go")
    await session.wait_idle()
    assert [r.title for r in approver.asked][1].startswith(f"Run `touch {outside}/b.txt` OUTSIDE")
    assert not (outside / "b.txt").exists()


async def test_yolo_asks_by_default_and_never_refuses_without_asking(make_session: Any, outside: Path) -> None:
    approver, found = await _run(make_session, f"touch {outside}/y.txt", ("allow_once",), permission_mode="yolo")
    assert len(approver.asked) == 1 and found == [(False, "(no output)")]
    approver, found = await _run(
        make_session, f"touch {outside}/z.txt", (), settings={"sandbox.escalation": "never"}, permission_mode="yolo"
    )
    assert approver.asked == [] and found[0][0] is True and "sandbox.escalation is never" in found[0][1]
    assert not (outside / "z.txt").exists()


async def test_the_sandbox_parameter_is_declared_and_checked(make_session: Any) -> None:
    from atomic.core.tools.bash import BashTool

    assert BashTool.parameters["properties"]["sandbox"]["type"] == "boolean"
    _approver, found = await _run(make_session, "echo hi", (), permission_mode="yolo", settings={"sandbox.mode": "off"})
    assert found == [(False, "hi\n")] or found[0][1].strip() == "hi", "with the sandbox off there is nothing to lift"


async def test_print_mode_refuses_an_escalation_and_runs_nothing(workdir: Path, write_script: Any, outside: Path) -> None:
    work_dir, rpc_env = workdir, dict(os.environ)
    script = write_script(bash_calls(f"touch {outside}/print.txt; touch inside.txt", sandbox=False))
    code, out, err = await run_atomic(["-p", "go", "--provider", "scripted"], work_dir, rpc_env, script)
    assert code == 0, err
    assert not (outside / "print.txt").exists() and not (work_dir / "inside.txt").exists()
    json_script = write_script(bash_calls(f"touch {outside}/json.txt", sandbox=False))
    code, out, err = await run_atomic(["--mode", "json", "go", "--provider", "scripted"], work_dir, rpc_env, json_script)
    assert "nobody can approve it" in out and "outside the sandbox" in out, out[-2000:]
    assert not (outside / "json.txt").exists()
