"""Event hooks: cancelling a fork, blocking and changing tool calls, results, input, prompt and context."""

from __future__ import annotations

from pathlib import Path

from atomic.core.engine.session_stats import last_assistant_text
from atomic.core.messages import ToolResultMessage, UserMessage
from tests.support import Recorder, module_of, write_extension

NO_FORKS = """
    SEEN = []

    def activate(atomic):
        def before_fork(payload):
            SEEN.append(payload)
            return {"cancel": True}

        atomic.on("session_before_fork", before_fork)
"""


async def test_an_extension_cancels_a_fork(make_session, ext_dir: Path, tmp_path: Path) -> None:
    path = write_extension(ext_dir, "noforks.py", NO_FORKS)
    session, _, _ = await make_session([{"text": "hi"}], extensions=[str(path)])
    await session.prompt("first message")
    await session.wait_idle()
    assert session.store.path is not None
    session_dir = session.store.path.parent
    files_before = sorted(session_dir.iterdir())
    [fork_point] = session.files.fork_messages()

    forked = await session.files.fork(fork_point.entry_id)

    assert (forked.text, forked.cancelled) == ("first message", True)
    assert sorted(session_dir.iterdir()) == files_before
    assert session.store.path == files_before[0]
    assert module_of(session, path).SEEN == [{"entryId": fork_point.entry_id, "position": "before"}]
    assert await session.files.clone() is False


GUARD = """
    RAN = []

    def activate(atomic):
        async def guard(payload):
            command = payload["input"].get("command", "")
            if payload["toolName"] == "bash" and "rm -rf /" in command:
                return {"block": True, "reason": "Blocked: refusing to delete the filesystem"}
            if payload["toolName"] == "bash":
                payload["input"]["command"] = command.replace("hello", "changed")

        atomic.on("tool_call", guard)
"""


async def test_tool_call_hook_blocks_a_call_and_changes_another(make_session, ext_dir: Path, workdir: Path) -> None:
    path = write_extension(ext_dir, "guard.py", GUARD)
    marker = workdir / "marker"
    script = [
        {
            "toolCalls": [
                {"name": "bash", "arguments": {"command": f"touch {marker} && rm -rf / --no-preserve-root"}},
                {"name": "bash", "arguments": {"command": "echo hello"}},
            ]
        },
        {"text": "ok"},
    ]
    session, _, _ = await make_session(script, extensions=[str(path)])
    await session.prompt("go")
    await session.wait_idle()
    blocked, changed = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert blocked.is_error and blocked.content[0].text == "Blocked: refusing to delete the filesystem"
    assert not marker.exists()  # the blocked command never ran
    assert not changed.is_error and changed.content[0].text.strip() == "changed"


PATCH_RESULT = """
    def activate(atomic):
        def redact(payload):
            if payload["toolName"] == "bash":
                return {"content": "[redacted]", "details": {"redacted": True}}

        atomic.on("tool_result", redact)
"""


async def test_tool_result_hook_patches_the_result(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "redact.py", PATCH_RESULT)
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo password"}}]}, {"text": "ok"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    await session.prompt("go")
    await session.wait_idle()
    [result] = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert result.content[0].text == "[redacted]" and result.details == {"redacted": True}


PROMPT_HOOKS = """
    def activate(atomic):
        def on_input(payload):
            if payload["text"] == "secret":
                return {"action": "handled"}
            if payload["text"].startswith("shout "):
                return {"action": "transform", "text": payload["text"][6:].upper()}

        def before_start(payload):
            return {"systemPrompt": payload["systemPrompt"] + "\\nALWAYS BE BRIEF"}

        def context(payload):
            return {"messages": payload["messages"][-1:]}

        atomic.on("input", on_input)
        atomic.on("before_agent_start", before_start)
        atomic.on("context", context)
"""


async def test_input_system_prompt_and_context_hooks(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "prompts.py", PROMPT_HOOKS)
    session, provider, _ = await make_session([{"text": "a"}, {"text": "b"}], extensions=[str(path)])
    await session.prompt("secret")
    assert not session.is_streaming and session.context_messages() == []

    await session.prompt("first")
    await session.wait_idle()
    await session.prompt("shout quietly")
    await session.wait_idle()

    request = provider.requests[-1]
    assert request.system_prompt.endswith("ALWAYS BE BRIEF")
    # The context hook cut the history down to the newest message, which the input hook upper-cased.
    assert len(request.messages) == 1 and isinstance(request.messages[0], UserMessage)
    assert request.messages[0].content == "QUIETLY"


EVENTS = """
    SEEN = []

    def activate(atomic):
        atomic.on("agent_end", lambda payload: SEEN.append(payload["event"].type))
        atomic.on("session_start", lambda payload: SEEN.append("start:" + payload["reason"]))
"""


async def test_agent_events_and_session_start_reach_handlers(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "events.py", EVENTS)
    session, _, _ = await make_session([{"text": "hi"}], extensions=[str(path)])
    seen = module_of(session, path).SEEN
    assert seen == ["start:startup"]
    await session.prompt("hello")
    await session.wait_idle()
    assert seen == ["start:startup", "agent_end"]
    await session.files.new_session()
    assert seen[-1] == "start:new"


RAISING_HANDLER = """
    def activate(atomic):
        def broken(payload):
            raise ValueError("handler exploded")

        atomic.on("before_agent_start", broken)
        atomic.on("tool_call", broken)
"""


async def test_a_raising_handler_is_reported_and_the_agent_still_answers(make_session, ext_dir: Path) -> None:
    path = write_extension(ext_dir, "raises.py", RAISING_HANDLER)
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo fine"}}]}, {"text": "all good"}]
    session, _, _ = await make_session(script, extensions=[str(path)])
    rec = Recorder(session)
    await session.prompt("hello")
    await session.wait_idle()
    errors = rec.of("extension_error")
    assert [(e["extensionPath"], e["event"]) for e in errors] == [
        (str(path.resolve()), "before_agent_start"),
        (str(path.resolve()), "tool_call"),
    ]
    assert all(e["error"] == "ValueError: handler exploded" for e in errors)
    [result] = [m for m in session.context_messages() if isinstance(m, ToolResultMessage)]
    assert result.content[0].text.strip() == "fine"
    assert last_assistant_text(session.context_messages()) == "all good"
