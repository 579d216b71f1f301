"""Extension commands (idle and while streaming), completion, and the message/session API."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.engine.session import PromptRejected
from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import CustomMessage, UserMessage
from tests.support import Recorder, module_of, wait_for, write_extension

HELLO = """
    CALLS = []

    def activate(atomic):
        async def hello(args, ctx):
            CALLS.append((args, ctx.is_idle(), str(ctx.cwd)))
            ctx.notify(f"Hello, {args}!")

        atomic.register_command(
            "hello",
            hello,
            description="Say hello",
            complete=lambda prefix: [n for n in ("world", "there") if n.startswith(prefix)],
        )
"""


async def test_command_runs_while_idle_without_a_model_turn(make_session, ext_dir: Path, workdir: Path) -> None:
    path = write_extension(ext_dir, "hello.py", HELLO)
    session, provider, _ = await make_session(extensions=[str(path)])
    rec = Recorder(session)
    assert session.extensions.is_command("/hello world") and not session.extensions.is_command("/nope")
    await session.prompt("/hello world")
    assert module_of(session, path).CALLS == [("world", True, str(workdir.resolve()))]
    assert not session.is_streaming and provider.requests == [] and session.context_messages() == []
    [notice] = rec.of("extension_ui_request")
    assert notice["method"] == "notify" and notice["message"] == "Hello, world!"
    assert notice["notifyType"] == "info" and notice["extensionPath"] == str(path.resolve())


async def test_command_runs_immediately_while_streaming(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "hello.py", HELLO)
    session, _, _ = await make_session([{"text": "x" * 400, "chunkSize": 1, "delayMs": 5}], extensions=[str(path)])
    await session.prompt("talk a lot")
    await wait_for(lambda: session.is_streaming)
    await session.prompt("/hello there")  # no streaming_behavior needed
    assert module_of(session, path).CALLS == [("there", False, str(session.cwd))]
    assert session.is_streaming and session.steering.texts() == [] and session.follow_ups.texts() == []
    await session.abort()


async def test_commands_cannot_be_queued(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "hello.py", HELLO)
    session, _, _ = await make_session(extensions=[str(path)])
    with pytest.raises(PromptRejected):
        await session.steer("/hello world")


async def test_argument_completion(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "hello.py", HELLO)
    session, _, _ = await make_session(extensions=[str(path)])
    assert session.extensions.complete_command("hello", "w") == ["world"]
    assert session.extensions.complete_command("/hello", "") == ["world", "there"]
    assert session.extensions.complete_command("unknown", "") == []


RAISING_COMMAND = """
    def activate(atomic):
        def broken(args, ctx):
            raise KeyError(args)

        atomic.register_command("broken", broken)
"""


async def test_a_raising_command_is_reported(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "broken.py", RAISING_COMMAND)
    session, provider, _ = await make_session(extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("/broken key")
    [error] = rec.of("extension_error")
    assert error["event"] == "command:broken" and error["extensionPath"] == str(path.resolve())
    assert provider.requests == []


MESSAGING = """
    def activate(atomic):
        async def note(args, ctx):
            atomic.send_message("note", f"Note: {args}", details={"n": 1}, trigger_turn=args == "go")

        def ask(args, ctx):
            atomic.send_user_message(args, deliver_as="followUp")

        def state(args, ctx):
            atomic.append_entry("counter", {"value": int(args)})
            atomic.set_session_name("named by extension")

        atomic.register_command("note", note)
        atomic.register_command("ask", ask)
        atomic.register_command("state", state)
"""


async def test_send_message_records_a_custom_message_and_can_trigger_a_turn(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "messaging.py", MESSAGING)
    session, provider, _ = await make_session([{"text": "noted"}], extensions=[str(path)])
    await session.prompt("/note quiet")
    assert not session.is_streaming and provider.requests == []
    [message] = session.context_messages()
    assert isinstance(message, CustomMessage) and message.custom_type == "note" and message.details == {"n": 1}

    await session.prompt("/note go")
    await session.wait_idle()
    assert last_assistant_text(session.context_messages()) == "noted"
    sent = provider.requests[0].messages
    assert [m.content[0].text for m in sent if isinstance(m, UserMessage)] == ["Note: quiet", "Note: go"]
    # Both are in the session file and come back on reload.
    session.reload_context()
    assert sum(isinstance(m, CustomMessage) for m in session.context_messages()) == 2


async def test_send_user_message_runs_when_idle_and_queues_while_streaming(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "messaging.py", MESSAGING)
    script = [{"text": "y" * 200, "chunkSize": 1, "delayMs": 5}, {"text": "answer two"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    await session.prompt("/ask first question")
    await wait_for(lambda: session.is_streaming)
    await session.prompt("/ask second question")
    assert session.follow_ups.texts() == ["second question"]
    await session.wait_idle()
    await wait_for(lambda: not session.is_streaming and not len(session.follow_ups))
    await session.wait_idle()
    users = [m.content for m in session.context_messages() if isinstance(m, UserMessage)]
    assert users == ["first question", "second question"]
    assert last_assistant_text(session.context_messages()) == "answer two"


async def test_append_entry_and_session_name(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "messaging.py", MESSAGING)
    session, _, _ = await make_session([{"text": "hi"}], extensions=[str(path)])
    await session.prompt("hello")
    await session.wait_idle()
    leaf_before = session.store.leaf_id
    await session.prompt("/state 7")
    entries = session.extensions.extensions[0].api.custom_entries("counter")
    assert [e["data"] for e in entries] == [{"value": 7}]
    assert entries[0]["parentId"] == leaf_before  # on the current branch
    assert session.store.name() == "named by extension"
    assert session.extensions.extensions[0].api.get_session_name() == "named by extension"
    # The conversation the model sees is unchanged.
    assert [type(m).__name__ for m in session.context_messages()] == ["UserMessage", "AssistantMessage"]
    lines = session.store.path.read_text().splitlines()
    assert any('"type":"custom"' in line and '"customType":"counter"' in line for line in lines)


MODEL_CONTROL = """
    def activate(atomic):
        atomic.register_command("level", lambda args, ctx: atomic.set_thinking_level(args))
        atomic.register_command("mark", lambda args, ctx: atomic.set_label(args, "checkpoint"))
"""


async def test_thinking_level_model_and_labels(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "model.py", MODEL_CONTROL)
    session, _, _ = await make_session([{"text": "hi"}], extensions=[str(path)])
    api = session.extensions.extensions[0].api
    assert api.model.id == "scripted-model"
    await session.prompt("hello")
    await session.wait_idle()
    leaf = session.store.leaf_id
    await session.prompt("/level high")
    assert api.thinking_level == "high" == session.models.thinking_level
    await session.prompt(f"/mark {leaf}")
    assert session.store.labels()[leaf][0] == "checkpoint"
