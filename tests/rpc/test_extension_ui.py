"""Extension UI over RPC: extension_ui_request lines, extension_ui_response answers, timeouts, abort."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.rpc.conftest import StartRpc
from tests.rpc.helpers import RecordingClient
from tests.support import write_extension

EXAMPLE = ROOT / "examples" / "extensions" / "ask_first.py"
RISKY_CALL = {"toolCalls": [{"name": "bash", "arguments": {"command": "rm -rf ./scratch"}, "id": "call_rm"}]}


def ui_requests(client: RecordingClient, method: str | None = None) -> list[dict[str, Any]]:
    return [e for e in client.events
            if e["type"] == "extension_ui_request" and (method is None or e["method"] == method)]


async def next_ui_request(client: RecordingClient, method: str, after: int = 0) -> dict[str, Any]:
    return await client.wait_for("extension_ui_request", predicate=lambda e: e["method"] == method, after=after)


async def answer(client: RecordingClient, request_id: str, **fields: Any) -> None:
    """Send an extension_ui_response, then prove (by a later command's answer) that it got none."""
    before = len(client.responses)
    client.send_raw(f'{{"type":"extension_ui_response","id":"{request_id}",' +
                    ",".join(f'"{k}":{_json(v)}' for k, v in fields.items()) + "}\n")
    await client.get_state()
    assert not [r for r in client.responses[before:] if r.get("command") == "extension_ui_response"]


def run_command(client: RecordingClient, text: str) -> asyncio.Future[dict[str, Any]]:
    """A prompt that runs an extension command is answered when the command has finished, so its
    dialogs must be answered first: send it without waiting for the response."""
    return asyncio.ensure_future(client.request({"type": "prompt", "message": text}))


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


@pytest.fixture
def scratch(work_dir: Path) -> Path:
    path = work_dir / "scratch"
    path.mkdir()
    (path / "file.txt").write_text("x", encoding="utf-8")
    return path


async def test_confirm_allows_a_risky_command(start_rpc: StartRpc, scratch: Path) -> None:
    client = await start_rpc([RISKY_CALL, {"text": "removed"}], "-e", str(EXAMPLE))
    await client.prompt("clean up")
    request = await next_ui_request(client, "confirm")
    assert set(request) == {"type", "id", "method", "title", "message", "timeout", "extensionPath"}
    assert request["title"] == "Run this command?" and request["message"] == "rm -rf ./scratch"
    assert request["timeout"] == 120000
    await answer(client, request["id"], confirmed=True)
    await client.wait_for("agent_end")
    assert not scratch.exists()
    tool = next(m for m in await client.get_messages() if m["role"] == "toolResult")
    assert tool["isError"] is False


async def test_declined_or_cancelled_confirm_blocks_the_command(start_rpc: StartRpc, scratch: Path) -> None:
    client = await start_rpc([RISKY_CALL, {"text": "ok"}, RISKY_CALL, {"text": "ok"}], "-e", str(EXAMPLE))
    for reply in ({"confirmed": False}, {"cancelled": True}):
        start = len(client.events)
        await client.prompt("clean up")
        request = await next_ui_request(client, "confirm", after=start)
        await answer(client, request["id"], **reply)
        await client.wait_for("agent_end", after=start)
        await client.wait_idle()
    assert scratch.exists()
    blocked = [m for m in await client.get_messages() if m["role"] == "toolResult"]
    assert len(blocked) == 2
    assert all(m["isError"] and "did not allow" in m["content"][0]["text"] for m in blocked)


async def test_note_command_uses_select_input_editor_and_display_calls(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "-e", str(EXAMPLE))
    # session_start at startup set the title before the client attached: it is sent first.
    [title] = ui_requests(client, "setTitle") or [await next_ui_request(client, "setTitle")]
    assert title["title"] == "atomic · project"
    command = run_command(client, "/note")
    select = await next_ui_request(client, "select")
    assert select["options"] == ["todo", "idea", "question"] and select["title"] == "Kind of note"
    await answer(client, select["id"], value="idea")
    field = await next_ui_request(client, "input")
    assert field["title"] == "New idea" and field["placeholder"] == "one line"
    await answer(client, field["id"], value="cache the index")
    editor = await next_ui_request(client, "editor")
    assert editor["prefill"] == "idea: cache the index\n"
    await answer(client, editor["id"], value="idea: cache the index\nin memory")
    assert (await command)["success"] is True
    notice = await next_ui_request(client, "notify")
    assert notice["message"] == "Saved idea #1" and notice["notifyType"] == "info"
    [widget] = [w for w in ui_requests(client, "setWidget") if "widgetLines" in w]
    assert widget["widgetKey"] == "notes" and widget["widgetLines"] == ["• idea: cache the index"]
    [status] = [s for s in ui_requests(client, "setStatus") if "statusText" in s]
    assert status["statusKey"] == "notes" and status["statusText"] == "notes: 1"
    entries = (await client.call("get_entries"))["entries"]
    [saved] = [e for e in entries if e["type"] == "custom"]
    assert saved["data"] == {"kind": "idea", "text": "cache the index", "details": "idea: cache the index\nin memory"}


async def test_cancelled_select_ends_the_command(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "-e", str(EXAMPLE))
    command = run_command(client, "/note")
    select = await next_ui_request(client, "select")
    await answer(client, select["id"], cancelled=True)
    assert (await command)["success"] is True
    assert ui_requests(client, "input") == []
    assert [e for e in (await client.call("get_entries"))["entries"] if e["type"] == "custom"] == []


async def test_responses_that_answer_nothing_get_an_error_and_keep_the_dialog_open(start_rpc: StartRpc) -> None:
    client = await start_rpc(None, "-e", str(EXAMPLE))
    unknown = await client.request({"id": "nope", "type": "extension_ui_response", "value": "x"})
    assert unknown["id"] == "nope" and unknown["command"] == "extension_ui_response"
    assert unknown["success"] is False and "No pending extension UI request" in unknown["error"]

    run_command(client, "/note")
    select = await next_ui_request(client, "select")
    for wrong in ({"value": "not-an-option"}, {"confirmed": True}, {"value": 3}, {"cancelled": "yes"}):
        response = await client.request({"id": select["id"], "type": "extension_ui_response", **wrong})
        assert response["success"] is False and response["id"] == select["id"]
    # Still open: a fitting answer goes through, once; a second one is an error.
    await answer(client, select["id"], value="todo")
    await next_ui_request(client, "input")
    late = await client.request({"id": select["id"], "type": "extension_ui_response", "value": "todo"})
    assert late["success"] is False and "No pending" in late["error"]


DIALOG_EXTENSION = """
    RESULTS = []

    def activate(atomic):
        async def ask(args, ctx):
            timeout = float(args) if args else None
            RESULTS.append(await ctx.ui.confirm("Sure?", "really", timeout=timeout))
            ctx.ui.notify(f"answer: {RESULTS[-1]}")
            value = await ctx.ui.input("Name", "", timeout=timeout)
            ctx.ui.notify(f"name: {value}")

        atomic.register_command("ask", ask)
"""


async def test_a_dialog_nobody_answers_times_out_as_cancelled(start_rpc: StartRpc, tmp_path: Path) -> None:
    client = await start_rpc(None, "-e", str(write_extension(tmp_path, "ui_ext.py", DIALOG_EXTENSION)))
    command = run_command(client, "/ask 0.3")
    request = await next_ui_request(client, "confirm")
    assert request["timeout"] == 300
    first = await client.wait_for("extension_ui_request", predicate=lambda e: e["method"] == "notify")
    assert first["message"] == "answer: False"
    second = await client.wait_for("extension_ui_request", predicate=lambda e: e.get("message") == "name: None")
    assert second["method"] == "notify"
    late = await client.request({"id": request["id"], "type": "extension_ui_response", "confirmed": True})
    assert late["success"] is False
    assert (await command)["success"] is True


async def test_abort_cancels_open_dialogs(start_rpc: StartRpc, tmp_path: Path) -> None:
    client = await start_rpc(None, "-e", str(write_extension(tmp_path, "ui_ext.py", DIALOG_EXTENSION)))
    command = run_command(client, "/ask")
    request = await next_ui_request(client, "confirm")
    assert "timeout" not in request  # timeout=None: waits until answered or aborted
    await client.abort()
    # The command goes on: its next dialog is open; a second abort cancels that one too.
    await next_ui_request(client, "input")
    await client.abort()
    assert (await command)["success"] is True
    notices = [e["message"] for e in ui_requests(client, "notify")]
    assert notices == ["answer: False", "name: None"]
    late = await client.request({"id": request["id"], "type": "extension_ui_response", "confirmed": True})
    assert late["success"] is False


async def test_abort_during_a_tool_call_confirmation_blocks_the_tool(start_rpc: StartRpc, scratch: Path) -> None:
    client = await start_rpc([RISKY_CALL], "-e", str(EXAMPLE))
    await client.prompt("clean up")
    await next_ui_request(client, "confirm")
    await client.abort()
    await client.wait_idle()
    await asyncio.sleep(0.1)
    assert scratch.exists()


async def test_status_and_widget_removal_omit_their_text(start_rpc: StartRpc, tmp_path: Path) -> None:
    body = """
        def activate(atomic):
            def show(args, ctx):
                ctx.ui.set_status("build", "building")
                ctx.ui.set_status("build", None)
                ctx.ui.set_widget("log", "one\\ntwo")
                ctx.ui.set_widget("log", None)
                ctx.ui.notify("careful", "warning")

            atomic.register_command("show", show)
    """
    client = await start_rpc(None, "-e", str(write_extension(tmp_path, "ui_ext.py", body)))
    await client.prompt("/show")
    await next_ui_request(client, "notify")
    wire = [{k: v for k, v in e.items() if k not in ("id", "extensionPath")} for e in ui_requests(client)]
    assert wire == [
        {"type": "extension_ui_request", "method": "setStatus", "statusKey": "build", "statusText": "building"},
        {"type": "extension_ui_request", "method": "setStatus", "statusKey": "build"},
        {"type": "extension_ui_request", "method": "setWidget", "widgetKey": "log", "widgetLines": ["one", "two"]},
        {"type": "extension_ui_request", "method": "setWidget", "widgetKey": "log"},
        {"type": "extension_ui_request", "method": "notify", "message": "careful", "notifyType": "warning"},
    ]
    assert len({e["id"] for e in ui_requests(client)}) == 5
