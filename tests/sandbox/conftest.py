"""Helpers for the sandbox tests: sessions whose bash calls run in the real sandbox, and a folder outside
every writable root (pytest's temp folders live under /tmp, which the sandbox may always write)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.messages import ToolResultMessage
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.sandbox.probe import probe_support

SUPPORT = probe_support()
needs_sandbox = pytest.mark.skipif(
    not SUPPORT.available, reason=f"no OS sandbox here ({SUPPORT.reason}); CI installs bubblewrap"
)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A fresh folder outside the temp folder, the project and the cache: no sandboxed command may write it."""
    base = Path("/var/tmp")
    if not base.is_dir():
        pytest.skip("/var/tmp is missing")
    folder = Path(tempfile.mkdtemp(prefix="atomic-sandbox-test-", dir=base))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def bash_calls(*commands: str, **extra: Any) -> list[dict[str, Any]]:
    """One assistant turn per command (so results come back in order), then a closing text."""
    turns: list[dict[str, Any]] = [
        {"toolCalls": [{"name": "bash", "arguments": {"command": c, **extra}, "id": f"call-{i}"}]}
        for i, c in enumerate(commands)
    ]
    return [*turns, {"text": "done"}]


def results(session: Any) -> list[tuple[bool, str]]:
    """(is_error, text) of every tool result, in order."""
    out: list[tuple[bool, str]] = []
    for message in session.context_messages():
        if isinstance(message, ToolResultMessage):
            out.append((message.is_error, "".join(b.text for b in message.content if b.type == "text")))
    return out


async def run_commands(make_session: Any, *commands: str, settings: dict[str, Any] | None = None,
                       cwd: Path | None = None, **options: Any) -> tuple[Any, list[tuple[bool, str]]]:
    """Run the commands as the model would (in `cwd` when given, else the test's project folder)."""
    if cwd is None:
        session, _provider, _rec = await make_session(bash_calls(*commands), **options)
    else:
        provider = ScriptedProvider(bash_calls(*commands))
        session = await create_session(SessionOptions(cwd=cwd, scripted=provider, **options))
    try:
        if settings is not None:
            session.settings_manager.update(settings)
        await session.prompt("run them")
        await session.wait_idle()
        return session, results(session)
    finally:
        if cwd is not None:
            await session.shutdown()
