"""Aborting a run while its bash tool call runs: the tool result keeps the output printed so far."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from atomic.core.messages import ToolResultMessage


async def test_abort_keeps_the_bash_output_in_the_tool_result(make_session: Any) -> None:
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo partial line; sleep 30"}}]}]
    session, _provider, rec = await make_session(script)
    await session.prompt("run it")
    deadline = time.monotonic() + 5
    while not any("partial line" in str(u["partialResult"]) for u in rec.of("tool_execution_update")):
        assert time.monotonic() < deadline, "the command never printed"
        await asyncio.sleep(0.02)
    await session.abort()
    end = rec.of("tool_execution_end")[0]
    assert end["isError"] is True
    assert end["result"]["content"] == [{"type": "text", "text": "partial line\n\nCommand aborted"}]
    stored = session.context_messages()[-1]
    assert isinstance(stored, ToolResultMessage) and stored.is_error
    assert stored.content[0].text == "partial line\n\nCommand aborted"
    assert "agent_end" in rec.types()
