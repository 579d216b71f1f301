"""A bug anywhere in a run still ends it with agent_end, so no client waits forever."""

from __future__ import annotations

from typing import Any

import pytest

from atomic.core.agent import loop


async def test_an_unexpected_exception_still_emits_agent_end(make_session, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*_args: Any, **_kwargs: Any) -> list[Any]:
        raise RuntimeError("tool runner bug")

    monkeypatch.setattr(loop, "run_tool_calls", broken)
    session, _provider, rec = await make_session([{"toolCalls": [{"name": "ls", "arguments": {}}]}])
    await session.prompt("go")
    with pytest.raises(RuntimeError, match="tool runner bug"):
        await session.wait_idle()
    assert rec.types().count("agent_end") == 1
    assert not session.is_streaming
