"""The engine side of extension UI: the pending-dialog registry, answers, replay to a late frontend."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from atomic.core.events import Event
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.core.extensions.ui import ExtensionUI, UiAnswer, UiAnswerError
from tests.support import Recorder, module_of, write_extension


def frontend(session: Any) -> list[ExtensionUiRequest]:
    """Attach a frontend that records what it is asked to show (replayed requests included)."""
    shown: list[ExtensionUiRequest] = []

    def show(event: Event) -> None:
        assert isinstance(event, ExtensionUiRequest)
        shown.append(event)

    session.extension_ui.attach(show)
    session.subscribe(lambda e: shown.append(e) if isinstance(e, ExtensionUiRequest) else None)
    return shown


async def next_dialog(shown: list[ExtensionUiRequest], method: str, seen: int = 0) -> ExtensionUiRequest:
    """The request after the first `seen` ones of that method."""
    for _ in range(200):
        found = [e for e in shown if e.method == method]
        if len(found) > seen:
            return found[seen]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no {method} request")


async def test_without_a_frontend_dialogs_are_cancelled_at_once(make_session) -> None:
    session, _, _ = await make_session()
    rec = Recorder(session)
    ui = ExtensionUI(session.extension_ui, "x.py")
    assert ui.has_ui is False
    assert await ui.confirm("Sure?", "really") is False
    assert await ui.select("Pick", ["a"]) is None
    assert await ui.input("Name") is None
    assert await ui.editor("Text", "prefill") is None
    assert rec.of("extension_ui_request") == []  # nothing was asked


async def test_answers_are_checked_against_the_request(make_session) -> None:
    session, _, _ = await make_session()
    shown = frontend(session)
    ui = ExtensionUI(session.extension_ui, "x.py")
    host = session.extension_ui
    pick = asyncio.ensure_future(ui.select("Pick", ["a", "b"]))
    request = await next_dialog(shown, "select")
    assert host.pending_ids() == [request.id]
    for wrong in (UiAnswer(value="c"), UiAnswer(confirmed=True), UiAnswer(value=1), UiAnswer(cancelled="yes")):
        with pytest.raises(UiAnswerError):
            host.resolve(request.id, wrong)
    with pytest.raises(UiAnswerError, match="No pending"):
        host.resolve("unknown", UiAnswer(value="a"))
    host.resolve(request.id, UiAnswer(value="b"))
    assert await pick == "b"
    assert host.pending_ids() == []
    with pytest.raises(UiAnswerError, match="No pending"):
        host.resolve(request.id, UiAnswer(value="a"))


async def test_confirm_cancel_timeout_and_abort(make_session) -> None:
    session, _, _ = await make_session()
    shown = frontend(session)
    ui = ExtensionUI(session.extension_ui, "x.py")
    host = session.extension_ui
    settled: list[str] = []
    host.on_settled(settled.append)

    yes = asyncio.ensure_future(ui.confirm("A", "a"))
    request = await next_dialog(shown, "confirm")
    host.resolve(request.id, UiAnswer(confirmed=True))
    assert await yes is True

    cancelled = asyncio.ensure_future(ui.confirm("B", "b"))
    request = await next_dialog(shown, "confirm", seen=1)
    host.resolve(request.id, UiAnswer(cancelled=True))
    assert await cancelled is False

    assert await ui.input("C", timeout=0.05) is None
    assert [e for e in shown if e.method == "input"][0].timeout == 50

    waiting = asyncio.ensure_future(ui.editor("D", "text", timeout=None))
    request = await next_dialog(shown, "editor")
    assert request.timeout is None and request.prefill == "text"
    await session.abort()
    assert await waiting is None
    assert len(settled) == 4 and host.pending_ids() == []


async def test_state_and_early_notices_are_replayed_to_a_late_frontend(make_session) -> None:
    session, _, _ = await make_session()
    ui = ExtensionUI(session.extension_ui, "x.py")
    ui.notify("loaded", "warn")
    ui.set_status("b-key", "second")
    ui.set_status("a-key", "first")
    ui.set_status("gone", "x")
    ui.set_status("gone", None)
    ui.set_widget("w", "one\ntwo")
    ui.set_title("Title")
    shown = frontend(session)
    assert [(e.method, e.message, e.notify_type) for e in shown if e.method == "notify"] == [
        ("notify", "loaded", "warning")]
    assert [(e.status_key, e.status_text) for e in shown if e.method == "setStatus"] == [
        ("a-key", "first"), ("b-key", "second")]
    assert [(e.widget_key, e.widget_lines) for e in shown if e.method == "setWidget"] == [("w", ["one", "two"])]
    assert [e.title for e in shown if e.method == "setTitle"] == ["Title"]
    # A second frontend gets the state, not the already-shown notice.
    again = frontend(session)
    assert [e.method for e in again] == ["setStatus", "setStatus", "setWidget", "setTitle"]


async def test_dialog_from_a_tool_call_hook_holds_the_call_until_answered(make_session, ext_dir: Path) -> None:
    source = """
        def activate(atomic):
            async def gate(payload, ctx):
                if payload["toolName"] == "bash":
                    if not await ctx.ui.confirm("Run?", payload["input"]["command"]):
                        return {"block": True, "reason": "no"}

            atomic.on("tool_call", gate)
    """
    path = write_extension(ext_dir, "gate.py", source)
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo ran"}}]}, {"text": "done"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    assert module_of(session, path) is not None
    shown = frontend(session)
    await session.prompt("go")
    request = await next_dialog(shown, "confirm")
    assert request.message == "echo ran" and request.extension_path == str(path.resolve())
    assert session.is_streaming
    session.extension_ui.resolve(request.id, UiAnswer(confirmed=True))
    await session.wait_idle()
    result = [m for m in session.context_messages() if m.role == "toolResult"][0]
    assert not result.is_error and "ran" in result.content[0].text
