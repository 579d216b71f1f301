"""Approvals in the terminal: the approval card answers with y / a / n; /permissions and f2 switch the mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.messages import ToolResultMessage
from atomic.tui.screens.approval_screen import ApprovalScreen
from tests.tui.helpers import make_app, submit, wait_for


def bash(command: str, call_id: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}, "id": call_id}]}


def results(app: Any) -> list[ToolResultMessage]:
    return [m for m in app.session.messages() if isinstance(m, ToolResultMessage)]


async def test_y_allows_and_n_rejects(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    script = [bash("touch yes.txt", "c1"), {"text": "ran"}, bash("touch no.txt", "c2"), {"text": "ok"}]
    app = make_app(cwd, script, permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "make yes")
        await wait_for(lambda: isinstance(app.screen, ApprovalScreen), pilot, timeout=10)
        assert app.screen.request.title == "Run `touch yes.txt`"
        await pilot.press("y")
        await wait_for(lambda: len(results(app)) == 1 and not app.session.is_streaming, pilot, timeout=10)
        assert (cwd / "yes.txt").exists()
        await submit(pilot, "make no")
        await wait_for(lambda: isinstance(app.screen, ApprovalScreen), pilot, timeout=10)
        await pilot.press("n")
        await wait_for(lambda: len(results(app)) == 2 and not app.session.is_streaming, pilot, timeout=10)
    assert not (cwd / "no.txt").exists()
    assert results(app)[1].is_error


async def test_a_remembers_the_command_for_the_session(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    script = [bash("touch one.txt", "c1"), bash("touch two.txt", "c2"), {"text": "done"}]
    app = make_app(cwd, script, permission_mode="ask")
    asked: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "two files")
        await wait_for(lambda: isinstance(app.screen, ApprovalScreen), pilot, timeout=10)
        asked.append(app.screen.request.title)
        await pilot.press("a")
        await wait_for(lambda: not app.session.is_streaming and len(results(app)) == 2, pilot, timeout=10)
    # The second `touch` ran without a card.
    assert asked == ["Run `touch one.txt`"]
    assert (cwd / "one.txt").exists() and (cwd / "two.txt").exists()


async def test_permissions_command_and_f2_switch_the_mode(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session is not None, pilot)
        assert app.session.permission_mode == "yolo"
        await submit(pilot, "/permissions ask")
        await wait_for(lambda: app.session.permission_mode == "ask", pilot)
        await pilot.press("f2")
        await wait_for(lambda: app.session.permission_mode == "accept-edits", pilot)
        await pilot.press("f2")
        await wait_for(lambda: app.session.permission_mode == "yolo", pilot)
