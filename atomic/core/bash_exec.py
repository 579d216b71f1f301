"""Direct bash execution for the RPC `bash` command and the TUI's `!command` (not the bash tool).

Differences from the tool: output chunks are reported per channel (stdout/stderr) as they arrive,
a non-zero exit is a normal result rather than an error, and cancelling the task running
`execute_bash` does NOT raise: the process group is killed and a result with `cancelled=True`
(and `exit_code=None`) is returned, so the caller can still record and report what ran.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from atomic.core.shell import Channel, run_shell
from atomic.core.temp_output import sanitize_component
from atomic.core.tools.output_tail import SpillingCapture


@dataclass
class BashResult:
    output: str
    exit_code: int | None
    cancelled: bool
    truncated: bool
    full_output_path: str | None = None


def spill_file_name(request_id: str | None) -> str:
    """`atomic-bash-<id>.log` with the request id made safe for a file name."""
    safe = sanitize_component(request_id or "", fallback=secrets.token_hex(8))[:64]
    return f"atomic-bash-{safe}.log"


async def execute_bash(
    command: str,
    *,
    cwd: Path | str,
    session_id: str | None,
    request_id: str | None,
    on_chunk: Callable[[Channel, str], None],
    shell_path: str | None = None,
    command_prefix: str | None = None,
    env: dict[str, str] | None = None,
    on_display: Callable[[str], None] | None = None,
) -> BashResult:
    """Run `command`, streaming `on_chunk(channel, text)`; never raises on cancellation (see module doc).
    `on_display` gets the same output with its colours (SGR only), for a frontend to show.

    Raises `atomic.core.shell.ShellError` when the command cannot start (e.g. missing cwd).
    """
    capture = SpillingCapture(session_id, spill_file_name(request_id))

    def on_output(channel: Channel, text: str) -> None:
        capture.append(text)
        on_chunk(channel, text)

    cancelled = False
    exit_code: int | None = None
    try:
        result = await run_shell(
            command,
            cwd,
            on_output=on_output,
            shell_path=shell_path,
            command_prefix=command_prefix,
            env=env,
            on_display=on_display,
        )
        exit_code = result.exit_code
    except asyncio.CancelledError:
        cancelled = True
        # The cancellation is consumed here on purpose; acknowledge it so the task is not left
        # looking "being cancelled" to asyncio.timeout/TaskGroup code further up.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
    finally:
        capture.close()

    snapshot = capture.snapshot()
    return BashResult(
        output=snapshot.content,
        exit_code=None if cancelled else exit_code,
        cancelled=cancelled,
        truncated=snapshot.truncated,
        full_output_path=capture.full_output_path if snapshot.truncated else None,
    )
