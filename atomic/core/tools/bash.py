"""The `bash` tool: run a command, stream its merged output, keep the end of it for the model."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
from collections.abc import Callable
from typing import Any

from atomic.core import paths
from atomic.core.sandbox.command import run_tool_command
from atomic.core.sandbox.diagnosis import explain_block
from atomic.core.shell import Channel, ShellError, ShellResult
from atomic.core.tools.base import EditorTerminal, Tool, ToolContext, ToolError, ToolOutput
from atomic.core.tools.display_tail import DisplayTail
from atomic.core.tools.output_tail import SpillingCapture
from atomic.core.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, tail_notice

UPDATE_INTERVAL_SECONDS = 0.1


def command_env(ctx: ToolContext) -> dict[str, str]:
    """The filtered process environment plus ctx.env, with `<agent dir>/bin` first on PATH (managed tools)."""
    env = dict(ctx.base_env) if ctx.base_env is not None else dict(os.environ)
    env.update(ctx.env)
    bin_dir = str((ctx.agent_dir or paths.agent_dir()) / "bin")
    current = env.get("PATH", "")
    env["PATH"] = f"{bin_dir}{os.pathsep}{current}" if current else bin_dir
    return env


def _format_seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class _ThrottledUpdates:
    """Sends the accumulated output to ctx.on_update at most every 100 ms, and flushes the last one."""

    def __init__(self, capture: SpillingCapture, display: DisplayTail, ctx: ToolContext) -> None:
        self._capture = capture
        self._display = display
        self._ctx = ctx
        self._loop = asyncio.get_running_loop()
        self._last_sent = float("-inf")
        self._scheduled: asyncio.TimerHandle | None = None

    def poke(self) -> None:
        elapsed = self._loop.time() - self._last_sent
        if elapsed >= UPDATE_INTERVAL_SECONDS:
            self._send()
        elif self._scheduled is None:
            self._scheduled = self._loop.call_later(UPDATE_INTERVAL_SECONDS - elapsed, self._send)

    def _send(self) -> None:
        self.cancel()
        self._last_sent = self._loop.time()
        snapshot = self._capture.snapshot()
        details = {
            "truncation": snapshot.to_wire() if snapshot.truncated else None,
            "fullOutputPath": self._capture.full_output_path,
        }
        update = ToolOutput.text(snapshot.content, details)
        if self._display.coloured:
            update.display = self._display.text(snapshot.output_lines)
        self._ctx.on_update(update)

    def cancel(self) -> None:
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None


class BashTool(Tool):
    name = "bash"
    label = "bash"
    description = (
        "Run a bash command in the current working directory and return its combined stdout and "
        f"stderr. Only the last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB of output are "
        "returned (whichever is smaller); when output is cut, the complete output is saved to a file "
        "whose path is given, which you can inspect with read or grep. A non-zero exit status is "
        "reported as an error together with the output. Optionally pass timeout (seconds) to stop "
        "commands that might run long; there is no timeout by default. Avoid interactive commands. "
        "Commands run in a sandbox that limits where they may write (and, when configured, the network); "
        'when the sandbox blocks a command that must run, pass "sandbox": false to ask the user to run '
        "that one command outside it."
    )
    parameters = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1, "description": "The bash command to run"},
            "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Timeout in seconds (optional, no default)"},
            "sandbox": {
                "type": "boolean",
                "description": "false asks the user to run this command outside the sandbox (default true)",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }
    prompt_snippet = "Execute bash commands (ls, git, tests, builds, etc.)"

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        command: str = args["command"]
        timeout = float(args["timeout"]) if "timeout" in args else None
        sandboxed: bool = args.get("sandbox", True)
        capture = SpillingCapture(ctx.session_id, f"atomic-bash-{secrets.token_hex(8)}.log")
        # The output with its colours, for the frontends' cards only (the model gets `capture`).
        display = DisplayTail()
        updates = _ThrottledUpdates(capture, display, ctx)

        def on_output(_channel: Channel, text: str) -> None:
            capture.append(text)
            updates.poke()

        result: ShellResult | None = None
        in_sandbox = False
        try:
            if ctx.editor_terminal is not None:
                # The ACP client's own terminal (acp.clientTerminal): the client runs it, not our sandbox.
                result = await _in_editor(ctx.editor_terminal, call_id, command, ctx, on_output, timeout)
            else:
                # `"sandbox": false` reaches this point only approved (agent/tool_runner.py asks first).
                result, in_sandbox = await run_tool_command(
                    command,
                    ctx.cwd,
                    ctx.sandbox if sandboxed else None,
                    on_output=on_output,
                    timeout_s=timeout,
                    shell_path=ctx.shell_path,
                    command_prefix=ctx.shell_command_prefix,
                    env=command_env(ctx),
                    on_display=display.append,
                )
        except ShellError as exc:
            raise ToolError(str(exc)) from None
        except asyncio.CancelledError:
            # Aborted: the process group is already killed. The output so far still goes into the
            # result (as pi does), so the cancellation is consumed here and acknowledged.
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        finally:
            updates.cancel()
            capture.close()

        snapshot = capture.snapshot()
        full_path = capture.full_output_path
        notice = tail_notice(snapshot, full_path, capture.tail.last_line_bytes)
        text = snapshot.content + notice
        details = {"truncation": snapshot.to_wire(), "fullOutputPath": full_path} if snapshot.truncated else None
        blocked = None
        if result is not None and (result.exit_code or 0) > 0 and in_sandbox and ctx.sandbox is not None:
            blocked = explain_block(ctx.sandbox.policy, text)
        message, failed = _outcome(text, result, timeout, blocked)
        shown = None
        if display.coloured and snapshot.content:
            shown, _ = _outcome(display.text(snapshot.output_lines) + notice, result, timeout, blocked)
        if failed:
            raise ToolError(message, display=shown)
        output = ToolOutput.text(message, details)
        output.display = shown
        return output


def _outcome(text: str, result: ShellResult | None, timeout: float | None, blocked: str | None) -> tuple[str, bool]:
    """What the call says, given its output `text`, and whether it failed."""
    if result is None:
        return (f"{text}\n\nCommand aborted" if text else "Command aborted"), True
    if result.timed_out:
        prefix = f"{text}\n\n" if text else ""
        return f"{prefix}Command timed out after {_format_seconds(timeout or 0)} seconds", True
    if result.exit_code is not None and result.exit_code < 0:
        signal_name = _signal_name(-result.exit_code)
        return f"{text or '(no output)'}\n\nCommand was terminated by signal {signal_name}", True
    if result.exit_code:
        reason = f"\n\n{blocked}" if blocked else ""
        return f"{text or '(no output)'}\n\nCommand exited with code {result.exit_code}{reason}", True
    return text or "(no output)", False


async def _in_editor(
    terminal: EditorTerminal, call_id: str, command: str, ctx: ToolContext,
    on_output: Callable[[Channel, str], None], timeout: float | None,
) -> ShellResult:
    # The editor's terminal has the editor's environment: only the session's own variables are
    # sent, never Atomic's process environment (it may hold keys).
    run = await terminal.run(call_id, command, ctx.cwd, dict(ctx.env), lambda text: on_output("stdout", text), timeout)
    if run.timed_out:
        return ShellResult(exit_code=None, timed_out=True)
    if run.signal is not None and run.exit_code is None:
        number = signal.Signals.__members__.get(run.signal)
        return ShellResult(exit_code=-int(number) if number is not None else -1)
    return ShellResult(exit_code=run.exit_code)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)

