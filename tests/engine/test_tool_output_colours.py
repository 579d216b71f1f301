"""Bash output keeps its colours for in-process frontends only: the events carry a display copy with SGR
sequences (nothing else), while the model, the RPC wire and the session file get the stripped text."""

from __future__ import annotations

from atomic.core.events import Event, ToolExecutionEnd, ToolExecutionUpdate
from tests.conftest import SessionMaker

# Colours, a title change, a screen clear, a hyperlink and a cursor move, one line at a time.
COMMAND = (
    r"printf '\033]0;pwned\007\033[2J\033[31mred\033[0m plain\n'; sleep 0.3;"
    r" printf '\033[1;32mPASSED\033[0m \033]8;;http://x\033\\link\033]8;;\033\\\033[3A done\n'; exit 3"
)


async def test_bash_colours_reach_the_events_but_not_the_wire_nor_the_session(make_session: SessionMaker) -> None:
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": COMMAND}}]}, {"text": "ok"}]
    session, provider, recorder = await make_session(script)
    events: list[Event] = []
    session.subscribe(events.append)
    await session.prompt("run it")
    await session.wait_idle()

    updates = [e for e in events if isinstance(e, ToolExecutionUpdate)]
    assert updates and updates[0].display == "\x1b[31mred\x1b[0m plain"
    (end,) = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert end.is_error
    assert end.display == (
        "\x1b[31mred\x1b[0m plain\n\x1b[1;32mPASSED\x1b[0m link done\n\nCommand exited with code 3"
    )
    plain = "red plain\nPASSED link done\n\nCommand exited with code 3"
    assert end.result["content"] == [{"type": "text", "text": plain}]

    # The wire: the same JSON as without colours, no display field.
    wire_end = recorder.of("tool_execution_end")[0]
    assert "display" not in wire_end and wire_end["result"]["content"][0]["text"] == plain
    assert all("display" not in update for update in recorder.of("tool_execution_update"))
    assert all("\x1b" not in str(event) for event in recorder.events)

    # The model and the session file see the stripped text only.
    tool_result = provider.requests[-1].messages[-1]
    assert tool_result.content[0].text == plain
    path = session.store.path
    assert path is not None
    stored = path.read_text(encoding="utf-8")
    assert "red plain" in stored and "\\u001b" not in stored and "\x1b" not in stored and "display" not in stored


async def test_output_without_colours_carries_no_display_copy(make_session: SessionMaker) -> None:
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo plain"}}]}, {"text": "ok"}]
    session, _provider, _recorder = await make_session(script)
    events: list[Event] = []
    session.subscribe(events.append)
    await session.prompt("run it")
    await session.wait_idle()
    (end,) = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert end.display is None and end.result["content"][0]["text"] == "plain"
