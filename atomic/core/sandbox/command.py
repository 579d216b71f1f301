"""The sandbox as tools see it (`ToolContext.sandbox`), and the engine's shell runner for tools.

The bash tool and extension tools that run processes call `run_tool_command`: it runs the command in
the sandbox the settings ask for, or as before when the sandbox is off, not available, or lifted for
this one call by an approved escalation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from atomic.core.sandbox.launch import Launch, sandboxed_launch
from atomic.core.sandbox.policy import SandboxPolicy
from atomic.core.sandbox.probe import Support
from atomic.core.shell import DisplayCallback, OutputCallback, ShellResult, run_shell


@dataclass(frozen=True)
class CommandSandbox:
    """One tool call's view: the policy in force and what the OS supports (asked only when needed)."""

    policy: SandboxPolicy
    support: Callable[[], Support]

    def write_refusal(self, path: Path | str) -> str | None:
        """Why the write and edit tools may not write `path` (None: they may). In-process, so the OS
        support plays no part: the rule holds wherever Atomic runs."""
        return self.policy.write_refusal(path)

    def launcher(self) -> Callable[[list[str | bytes]], Launch] | None:
        """How to wrap a command, or None when it runs unsandboxed (mode off, or no OS support)."""
        if not self.policy.active:
            return None
        support = self.support()
        if not support.available:
            return None
        policy = self.policy
        return lambda argv: sandboxed_launch(policy, support, argv)


async def run_tool_command(
    command: str,
    cwd: Path | str,
    sandbox: CommandSandbox | None,
    *,
    on_output: OutputCallback,
    timeout_s: float | None = None,
    shell_path: str | None = None,
    command_prefix: str | None = None,
    env: Mapping[str, str] | None = None,
    on_display: DisplayCallback | None = None,
) -> tuple[ShellResult, bool]:
    """Run `command` as `run_shell` does, inside `sandbox` when it applies. Returns the result and
    whether the sandbox was in force (the caller explains a failure only then)."""
    launcher = sandbox.launcher() if sandbox is not None else None
    result = await run_shell(
        command,
        cwd,
        on_output=on_output,
        timeout_s=timeout_s,
        shell_path=shell_path,
        command_prefix=command_prefix,
        env=env,
        launcher=launcher,
        on_display=on_display,
    )
    return result, launcher is not None
