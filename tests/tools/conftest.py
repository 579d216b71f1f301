"""Helpers for the tool tests: a context rooted in tmp_path and a short way to run a tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.tools.base import Tool, ToolContext, ToolOutput


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, session_id="test-session")


def text_of(output: ToolOutput) -> str:
    return "\n".join(block.text for block in output.content if block.type == "text")


async def run(tool: Tool, ctx: ToolContext, **args: Any) -> ToolOutput:
    return await tool.execute("call-1", args, ctx)


@pytest.fixture(autouse=True)
def private_tempdir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point tempfile.gettempdir() at a fresh folder so spill files never land in the real /tmp."""
    folder = tmp_path_factory.mktemp("tmproot")
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder
