"""Smaller API behaviours: deferred custom messages, handler ctx, unsubscribe, active tools, async patches."""

from __future__ import annotations

from pathlib import Path

from atomic.core.messages import AssistantMessage, CustomMessage, ToolResultMessage
from tests.support import Recorder, module_of, wait_for, write_extension

DURING_RUN = """
    def activate(atomic):
        atomic.register_command("note", lambda args, ctx: atomic.send_message("note", args))
"""


async def test_custom_message_sent_while_streaming_is_stored_after_the_run(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "note.py", DURING_RUN)
    script = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": "sleep 0.3; echo done"}}]},
        {"text": "finished"},
    ]
    session, _, _ = await make_session(script, extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("work")
    await wait_for(lambda: bool(rec.of("tool_execution_start")))
    await session.prompt("/note remember this")
    assert [m["message"]["role"] for m in rec.of("message_end")][-1] == "custom"
    await session.wait_idle()
    roles = [type(m).__name__ for m in session.context_messages()]
    # Never between the tool call and its result: stored once the run ended.
    assert roles == ["UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage", "CustomMessage"]
    assert isinstance(session.context_messages()[-1], CustomMessage)


CTX_AND_UNSUBSCRIBE = """
    SEEN = []

    def activate(atomic):
        def first_turn(payload, ctx):
            SEEN.append(ctx.is_idle())
            ctx.notify("turn started", level="warn")
            stop()

        stop = atomic.on("turn_start", first_turn)
        atomic.register_command("plan", lambda args, ctx: atomic.set_active_tools(["read"]))
"""


async def test_handler_ctx_unsubscribe_and_active_tools(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "ctx.py", CTX_AND_UNSUBSCRIBE)
    session, provider, _ = await make_session([{"text": "one"}, {"text": "two"}], extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("a")
    await session.wait_idle()
    await session.prompt("b")
    await session.wait_idle()
    assert module_of(session, path).SEEN == [False]
    [notice] = rec.of("extension_ui_request")
    assert notice["notifyType"] == "warning"

    await session.prompt("/plan")
    assert session.toolset.active_tool_names == ["read"]
    assert "- bash:" not in session.toolset.system_prompt and "- read:" in session.toolset.system_prompt
    assert {t.name for t in provider.requests[0].tools} >= {"bash", "read"}


ASYNC_PATCH = """
    import asyncio

    def activate(atomic):
        async def annotate(payload):
            await asyncio.sleep(0)
            return {"content": [{"type": "text", "text": "patched"}, "second block"], "isError": True}

        atomic.on("tool_result", annotate)
"""


async def test_async_tool_result_patch_with_plain_blocks(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "patch.py", ASYNC_PATCH)
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "ok"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    await session.prompt("list")
    await session.wait_idle()
    [result] = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert [b.text for b in result.content] == ["patched", "second block"] and result.is_error
    assert isinstance(session.context_messages()[-1], AssistantMessage)
