"""Helpers for the tool tests: a context rooted in tmp_path and a short way to run a tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.schema_check import check_arguments


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="test-session")


def text_of(output: ToolOutput) -> str:
    return "\n".join(block.text for block in output.content if block.type == "text")


async def run(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    """Run `tool` as the tool runner does: arguments its schema refuses never reach `execute`."""
    checked, refused = check_arguments(tool, args)
    if refused:
        raise ToolError(refused)
    return await tool.execute("call-1", checked, ctx)


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point tempfile.gettempdir() at a fresh folder so spill files never land in the real /tmp."""
    folder = tmp_path_factory.mktemp("tmproot")
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder
