"""Drive `atomic --mode acp` in a subprocess with the ACP SDK's own client side."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    CancelElicitationResponse,
    CreateTerminalResponse,
    DeniedOutcome,
    KillTerminalResponse,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)


class RecordingClient:
    """An ACP client that records every session update and answers permission requests from a list."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.permission_requests: list[Any] = []
        self.permission_answers: list[str] = []
        # The editor's unsaved buffers, by absolute path; writes land here, not on disk.
        self.buffers: dict[str, str] = {}
        # Answers to elicitation/create forms (one string each), and the messages asked.
        self.elicitation_answers: list[str] = []
        self.elicitations: list[str] = []
        self.terminals: dict[str, dict[str, Any]] = {}
        self.released: list[str] = []

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **_kwargs: Any) -> ReadTextFileResponse:
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **_kwargs: Any) -> WriteTextFileResponse:
        self.buffers[path] = content
        return WriteTextFileResponse()

    async def create_elicitation(self, message: str, mode: Any, **_kwargs: Any) -> Any:
        self.elicitations.append(message)
        if not self.elicitation_answers:
            return CancelElicitationResponse(action="cancel")
        field = next(iter(mode.requested_schema.properties))
        return AcceptElicitationResponse(action="accept", content={field: self.elicitation_answers.pop(0)})

    # terminal/*: the "editor" runs the command itself and keeps its output.
    async def create_terminal(self, command: str, session_id: str, args: list[str] | None = None,
                              cwd: str | None = None, env: list[Any] | None = None, **_kwargs: Any) -> Any:
        run_env = dict(os.environ, **{e.name: e.value for e in env or []})
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env=run_env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        terminal_id = f"term-{len(self.terminals)}"
        entry: dict[str, Any] = {"proc": proc, "output": "", "command": args}

        async def read() -> None:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(1024):
                entry["output"] += chunk.decode()

        entry["reader"] = asyncio.ensure_future(read())
        self.terminals[terminal_id] = entry
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(self, session_id: str, terminal_id: str, **_kwargs: Any) -> Any:
        entry = self.terminals[terminal_id]
        return TerminalOutputResponse(output=entry["output"], truncated=False)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **_kwargs: Any) -> Any:
        entry = self.terminals[terminal_id]
        code = await entry["proc"].wait()
        await entry["reader"]
        if code < 0:
            return WaitForTerminalExitResponse(exit_code=None, signal=signal.Signals(-code).name)
        return WaitForTerminalExitResponse(exit_code=code)

    async def kill_terminal(self, session_id: str, terminal_id: str, **_kwargs: Any) -> Any:
        proc = self.terminals[terminal_id]["proc"]
        if proc.returncode is None:
            proc.kill()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **_kwargs: Any) -> Any:
        self.released.append(terminal_id)
        return await self.kill_terminal(session_id, terminal_id)

    async def session_update(self, session_id: str, update: Any, **_kwargs: Any) -> None:
        self.updates.append(update)

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **_kwargs: Any) -> RequestPermissionResponse:
        self.permission_requests.append((tool_call, options))
        if not self.permission_answers:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.permission_answers.pop(0))
        )

    def on_connect(self, _conn: Any) -> None:
        pass

    def of_kind(self, kind: str) -> list[Any]:
        return [u for u in self.updates if u.session_update == kind]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of_kind(kind))




@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def acp_env(isolated_home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["ATOMIC_CODING_AGENT_DIR"] = str(isolated_home)
    env["ATOMIC_TEST"] = "1"
    return env


@asynccontextmanager
async def acp_agent(
    env: dict[str, str], script: Path, *extra: str, scripted: bool = True
) -> AsyncIterator[tuple[Any, RecordingClient, Any]]:
    from acp.stdio import spawn_agent_process

    client = RecordingClient()
    run_env = dict(env)
    run_env["ATOMIC_SCRIPT"] = str(script)
    async with spawn_agent_process(
        client, sys.executable, "-m", "atomic", "--mode", "acp",
        *(["--provider", "scripted"] if scripted else []), *extra, env=run_env,
        # elicitation/create is behind the SDK's unstable switch in this release.
        use_unstable_protocol=True,
    ) as (conn, process):
        yield conn, client, process
    if process.returncode is None:
        process.kill()
        await process.wait()


async def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "condition not reached"
        await asyncio.sleep(0.02)
