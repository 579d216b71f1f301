"""A subagent's commands run in its parent's sandbox: the child is the model too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.messages import ToolResultMessage
from tests.sandbox.conftest import needs_sandbox

pytestmark = needs_sandbox


async def test_a_childs_bash_is_sandboxed(make_session: Any, outside: Path) -> None:
    task = {"name": "task", "arguments": {"description": "write", "prompt": "escape now"}, "id": "t1"}
    script = [
        {"matchFirst": "^go", "toolCalls": [task]},
        {"matchFirst": "^escape",
         "toolCalls": [{"name": "bash", "arguments": {"command": f"echo x > {outside}/child.txt"}, "id": "b1"}]},
        {"matchFirst": "^escape", "text": "blocked"},
        {"matchFirst": "^go", "text": "done"},
    ]
    session, _provider, _rec = await make_session(script)
    await session.prompt("go")
    await session.wait_idle()
    assert not (outside / "child.txt").exists()  # with sandbox_mode="off" the child writes it
    assert any(isinstance(m, ToolResultMessage) for m in session.context_messages())
