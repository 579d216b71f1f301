"""The write and edit tools run inside Atomic's own process: they keep to the sandbox's writable roots and
protected paths themselves, in every permission mode (yolo included), with or without OS support."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.sandbox.control import SandboxControl
from atomic.core.sandbox.probe import Support
from tests.sandbox.conftest import results


def _write(path: str, call_id: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "write", "arguments": {"path": path, "content": "evil\n"}, "id": call_id}]}


def _edit(path: str, call_id: str) -> dict[str, Any]:
    edits = [{"oldText": "original", "newText": "evil"}]
    return {"toolCalls": [{"name": "edit", "arguments": {"path": path, "edits": edits}, "id": call_id}]}


async def _yes(_request: Any) -> str:
    return "allow_once"


async def _run(make_session: Any, turns: list[dict[str, Any]], **options: Any) -> tuple[Any, list[tuple[bool, str]]]:
    """Every approval the permission mode asks for is given: what stops a write here is the sandbox."""
    session, _provider, _rec = await make_session([*turns, {"text": "done"}], **options)
    session.permissions.approver = _yes
    await session.prompt("go")
    await session.wait_idle()
    return session, results(session)


@pytest.mark.parametrize("mode", ["yolo", "accept-edits", "ask"])
async def test_write_and_edit_refuse_paths_outside_the_roots(make_session: Any, workdir: Path, outside: Path,
                                                             mode: str) -> None:
    (outside / "victim.txt").write_text("original\n")
    _session, found = await _run(
        make_session,
        [_write(str(outside / "new.txt"), "w1"), _edit(str(outside / "victim.txt"), "e1"), _write("ok.txt", "w2")],
        permission_mode=mode,
    )
    assert [error for error, _ in found] == [True, True, False]
    assert "outside the writable roots" in found[0][1] and "outside the writable roots" in found[1][1]
    assert not (outside / "new.txt").exists() and (outside / "victim.txt").read_text() == "original\n"
    assert (workdir / "ok.txt").read_text() == "evil\n"


async def test_write_and_edit_refuse_the_protected_paths(make_session: Any, workdir: Path) -> None:
    (workdir / ".atomic").mkdir()
    (workdir / ".atomic" / "settings.json").write_text('{"x": "original"}\n')
    (workdir / ".git" / "hooks").mkdir(parents=True)
    _session, found = await _run(
        make_session,
        [_write(".git/hooks/pre-commit", "w1"), _edit(".atomic/settings.json", "e1"), _write(".mcp.json", "w2")],
    )
    assert [error for error, _ in found] == [True, True, True]
    assert all("protected" in text for _, text in found)
    assert not (workdir / ".git" / "hooks" / "pre-commit").exists() and not (workdir / ".mcp.json").exists()
    assert (workdir / ".atomic" / "settings.json").read_text() == '{"x": "original"}\n'


async def test_read_only_mode_refuses_the_project_itself(make_session: Any, outside: Path) -> None:
    from atomic.core.engine.factory import create_session
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider

    project = outside / "project"
    project.mkdir()
    provider = ScriptedProvider([_write("notes.txt", "w1"), {"text": "done"}])
    session = await create_session(SessionOptions(cwd=project, scripted=provider, sandbox_mode="read-only"))
    try:
        await session.prompt("go")
        await session.wait_idle()
        [(error, text)] = results(session)
    finally:
        await session.shutdown()
    assert error and "Sandbox (read-only)" in text and not (project / "notes.txt").exists()


async def test_the_write_rule_holds_where_the_os_gives_no_sandbox(make_session: Any, outside: Path,
                                                                  workdir: Path) -> None:
    session, _provider, _rec = await make_session([_write(str(outside / "x.txt"), "w1"), {"text": "done"}])
    session.sandbox = SandboxControl(
        lambda: session.settings.sandbox, workdir, support=lambda: Support("linux", None, "simulated")
    )
    await session.prompt("go")
    await session.wait_idle()
    assert results(session)[0][0] is True and not (outside / "x.txt").exists()


async def test_mode_off_lets_write_go_anywhere(make_session: Any, outside: Path) -> None:
    session, _provider, _rec = await make_session([_write(str(outside / "free.txt"), "w1"), {"text": "done"}])
    session.settings_manager.update({"sandbox.mode": "off"})
    await session.prompt("go")
    await session.wait_idle()
    assert results(session)[0][0] is False and (outside / "free.txt").exists()
