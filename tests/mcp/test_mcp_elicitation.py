"""A server's questions (elicitation) through the extension UI dialogs; roots; sampling refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.elicitation import elicit_form

from .conftest import tiny


class ScriptedDialogs:
    """Answers dialogs from a list (None = cancelled) and records what was asked."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, str, Any]] = []

    def _next(self, kind: str, title: str, extra: Any) -> Any:
        self.asked.append((kind, title, extra))
        return self.answers.pop(0) if self.answers else None

    async def confirm(self, title: str, message: str, *, timeout: float | None = None) -> bool:
        return bool(self._next("confirm", title, message))

    async def select(self, title: str, options: list[str], *, timeout: float | None = None) -> str | None:
        value: str | None = self._next("select", title, options)
        return value

    async def input(self, title: str, placeholder: str = "", *, timeout: float | None = None) -> str | None:
        value: str | None = self._next("input", title, placeholder)
        return value


@pytest.fixture
async def conn(tmp_path: Path) -> AsyncIterator[McpConnection]:
    connection = McpConnection(tiny(), cwd=tmp_path, log_dir=tmp_path / "logs", startup_timeout_s=60)
    connection.start()
    await connection.wait_ready(60)
    assert connection.status == "connected", connection.error
    try:
        yield connection
    finally:
        await connection.stop()


async def test_a_form_is_asked_field_by_field_and_checked_against_its_schema(conn: McpConnection) -> None:
    # age "-3" breaks the schema's minimum and "old" is not a number: both asked again.
    dialogs = ScriptedDialogs(["Ada", "-3", "old", "36", "green", True])
    conn.dialogs = dialogs
    result = await conn.call("ask", {}, 60)
    assert result["content"][0]["text"] == "accept name=Ada age=36 color=green subscribe=True"
    kinds = [kind for kind, _title, _extra in dialogs.asked]
    assert kinds == ["input", "input", "input", "input", "select", "confirm"]
    assert "MCP server tiny asks: Who are you?" in dialogs.asked[0][1]
    assert "-3 is less than the minimum of 0" in dialogs.asked[2][1]
    assert "(skip)" in dialogs.asked[4][2]  # color has a default: it may be skipped


async def test_cancel_and_no_frontend_answer_cancel(conn: McpConnection) -> None:
    conn.dialogs = ScriptedDialogs([None])
    assert (await conn.call("ask", {}, 60))["content"][0]["text"] == "action=cancel"
    conn.dialogs = None
    assert (await conn.call("ask", {}, 60))["content"][0]["text"] == "action=cancel"


async def test_an_answer_that_keeps_failing_cancels() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 10}}, "required": ["n"]}
    dialogs = ScriptedDialogs(["1", "2", "3"])
    answer = await elicit_form(dialogs, "s", "pick", schema)
    assert answer.action == "cancel" and len(dialogs.asked) == 3


async def test_an_empty_form_is_a_yes_or_no_and_no_declines() -> None:
    assert (await elicit_form(ScriptedDialogs([False]), "s", "go on?", {"type": "object"})).action == "decline"
    yes = await elicit_form(ScriptedDialogs([True]), "s", "go on?", {"type": "object", "properties": {}})
    assert yes.action == "accept" and yes.content == {}


async def test_roots_are_the_working_folder_and_sampling_is_refused(conn: McpConnection, tmp_path: Path) -> None:
    roots = await conn.call("roots", {}, 60)
    assert roots["content"][0]["text"] == tmp_path.resolve().as_uri()
    sampled = await conn.call("sample", {}, 60)
    assert sampled["content"][0]["text"] == "sampling failed: Sampling not supported"
