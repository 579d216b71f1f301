"""bash in the editor's terminals (ACP `terminal/*`), when the client offers them and
`acp.clientTerminal` is on.

The command runs as `bash -c <command>` in the session's folder; the tool call shows the terminal
live (`{type: "terminal", terminalId}`), and its output is polled for the model, so the result is
the same as a local run's. A timeout or an abort kills the command; the terminal is always
released. Only the session's own variables are sent as the environment.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import EnvVariable

from atomic.acp.chunks import SendUpdate
from atomic.core.contract import TerminalRun

POLL_S = 0.2
# What the editor keeps of a command's output (it drops the start beyond this).
OUTPUT_BYTE_LIMIT = 4 * 1024 * 1024


class ClientTerminal:
    def __init__(self, conn: Any, session_id: str, send: SendUpdate) -> None:
        self.conn = conn
        self.session_id = session_id
        self.send = send
        # Tool calls whose output the terminal shows (the bridge sends no text for them).
        self.calls: dict[str, str] = {}

    def terminal_of(self, call_id: str) -> str | None:
        return self.calls.get(call_id)

    async def run(
        self, call_id: str, command: str, cwd: Path, env: dict[str, str],
        on_output: Callable[[str], None], timeout_s: float | None,
    ) -> TerminalRun:
        created = await self.conn.create_terminal(
            session_id=self.session_id, command="bash", args=["-c", command], cwd=str(cwd),
            env=[EnvVariable(name=k, value=v) for k, v in env.items()], output_byte_limit=OUTPUT_BYTE_LIMIT,
        )
        terminal_id = created.terminal_id
        self.calls[call_id] = terminal_id
        self.send(helpers.update_tool_call(call_id, status="in_progress",
                                           content=[helpers.tool_terminal_ref(terminal_id)]))
        seen = 0

        async def pull() -> Any:
            nonlocal seen
            answer = await self.conn.terminal_output(session_id=self.session_id, terminal_id=terminal_id)
            text = str(answer.output)
            if len(text) > seen:
                on_output(text[seen:])
            seen = len(text)
            return answer

        exited = asyncio.ensure_future(
            self.conn.wait_for_terminal_exit(session_id=self.session_id, terminal_id=terminal_id))
        try:
            async with asyncio.timeout(timeout_s):
                while not exited.done():
                    await asyncio.wait({exited}, timeout=POLL_S)
                    await pull()
            status = exited.result()
            return TerminalRun(exit_code=status.exit_code, signal=status.signal)
        except TimeoutError:
            await self._kill(terminal_id)
            with contextlib.suppress(Exception):
                await pull()
            return TerminalRun(exit_code=None, timed_out=True)
        except asyncio.CancelledError:
            await asyncio.shield(self._kill(terminal_id))
            raise
        finally:
            exited.cancel()
            with contextlib.suppress(Exception):
                await asyncio.shield(self.conn.release_terminal(session_id=self.session_id, terminal_id=terminal_id))

    async def _kill(self, terminal_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.conn.kill_terminal(session_id=self.session_id, terminal_id=terminal_id)
