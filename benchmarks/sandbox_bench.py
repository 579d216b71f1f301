"""What the sandbox costs per command, and what the other ways to build it would cost.

Run: .venv/bin/python benchmarks/sandbox_bench.py [--runs 200] [--command true]

Prints medians (and 90th percentiles) in milliseconds over --runs, interleaved so that the shared
machine's noise hits every variant alike:
- the bash tool, from `execute()` called to its result returned, in a project folder: unsandboxed
  (`sandbox.mode: off`), sandboxed (workspace-write), and sandboxed without network. The overhead is
  the sandboxed median minus the unsandboxed one. Target (issue 25): <= 15 ms.
- launchers alone (asyncio subprocess, as the tool starts them): `bash -c CMD`; bubblewrap as Atomic
  calls it; a Python helper that applies Landlock and then execs bash (the smallest launcher that can
  be shipped without a compiler); Landlock applied in a `preexec_fn` of Atomic's own process (a fork
  of the big interpreter). The Landlock variants use the kernel's real ABI; they are skipped where it
  is missing.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from atomic.core.sandbox.command import CommandSandbox  # noqa: E402
from atomic.core.sandbox.launch import sandboxed_launch  # noqa: E402
from atomic.core.sandbox.policy import policy_from_settings  # noqa: E402
from atomic.core.sandbox.probe import probe_support  # noqa: E402
from atomic.core.settings import SandboxSettings  # noqa: E402
from atomic.core.tools.base import ToolContext, ToolError  # noqa: E402
from atomic.core.tools.bash import BashTool  # noqa: E402

# Landlock: allow writes only under one folder (the rest of the tree stays readable and executable).
_LANDLOCK_HELPER = r"""
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
WRITE = (1 << 1) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13) | (1 << 14)
attr = struct.pack("QQQ", WRITE, 0, 0)
ruleset = libc.syscall(444, attr, 24, 0)
fd = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
rule = struct.pack("=Qi", WRITE, fd)
libc.syscall(445, ruleset, 1, rule, 0)
libc.prctl(38, 1, 0, 0, 0)
libc.syscall(446, ruleset, 0)
os.execv("/bin/bash", ["bash", "-c", sys.argv[2]])
"""


def _landlock_abi() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.syscall(444, None, 0, 1))


def _landlock_in_preexec(folder: str) -> Callable[[], None]:
    import struct

    write = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))

    def apply() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        ruleset = libc.syscall(444, struct.pack("QQQ", write, 0, 0), 24, 0)
        fd = os.open(folder, os.O_PATH | os.O_DIRECTORY)
        libc.syscall(445, ruleset, 1, struct.pack("=Qi", write, fd), 0)
        libc.prctl(38, 1, 0, 0, 0)
        libc.syscall(446, ruleset, 0)

    return apply


async def _spawn(argv: list[str | bytes], cwd: str, **kwargs: object) -> None:
    process = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True, **kwargs,  # type: ignore[arg-type]
    )
    await process.communicate()


def _timed(samples: dict[str, list[float]], name: str, run: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[None]]:
    async def measure() -> None:
        start = time.perf_counter()
        await run()
        samples.setdefault(name, []).append((time.perf_counter() - start) * 1000)

    return measure


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--command", default="true")
    args = parser.parse_args()

    support = probe_support()
    if not support.available:
        sys.exit(f"no sandbox here: {support.reason}")
    project = Path(tempfile.mkdtemp(prefix="atomic-sandbox-bench-"))
    (project / ".git" / "hooks").mkdir(parents=True)
    cwd = str(project)
    tool = BashTool()

    def context(mode: str, network: bool) -> ToolContext:
        settings = SandboxSettings(mode=mode, network=network)  # type: ignore[arg-type]
        policy = policy_from_settings(settings, project)
        return ToolContext(cwd=project, sandbox=CommandSandbox(policy, lambda: support))

    async def tool_run(ctx: ToolContext) -> None:
        try:
            await tool.execute("bench", {"command": args.command}, ctx)
        except ToolError as exc:
            raise SystemExit(f"the command failed: {exc}") from None

    off, on, no_net = context("off", True), context("workspace-write", True), context("workspace-write", False)
    policy = policy_from_settings(SandboxSettings(), project)
    shell = ["/bin/bash", "-c", args.command]

    async def bwrap_alone() -> None:
        launch = sandboxed_launch(policy, support, list(shell))
        try:
            process = await asyncio.create_subprocess_exec(
                *launch.argv, cwd=cwd, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, pass_fds=launch.pass_fds,
            )
            launch.started()
            await launch.ready()  # bubblewrap holds the command until its namespace is noted
            await process.communicate()
        finally:
            launch.finished()

    samples: dict[str, list[float]] = {}
    variants = [
        _timed(samples, "tool: unsandboxed (mode off)", lambda: tool_run(off)),
        _timed(samples, "tool: workspace-write", lambda: tool_run(on)),
        _timed(samples, "tool: workspace-write, network false", lambda: tool_run(no_net)),
        _timed(samples, "launcher: bash -c", lambda: _spawn(list(shell), cwd)),
        _timed(samples, "launcher: bubblewrap (as Atomic runs it)", bwrap_alone),
    ]
    if _landlock_abi() > 0:
        helper = [sys.executable, "-I", "-S", "-c", _LANDLOCK_HELPER, cwd, args.command]
        variants.append(_timed(samples, "launcher: python helper, Landlock + exec", lambda: _spawn(helper, cwd)))
        preexec = _landlock_in_preexec(cwd)
        variants.append(
            _timed(samples, "launcher: Landlock in preexec_fn (fork of Atomic)",
                   lambda: _spawn(list(shell), cwd, preexec_fn=preexec))
        )
    for _ in range(5):  # warm-up: page cache, the first fork
        for variant in variants:
            await variant()
    samples.clear()
    for _ in range(args.runs):
        for variant in variants:
            await variant()

    print(f"{args.runs} runs of `{args.command}`, milliseconds (median / p90)  [bwrap: {shutil.which('bwrap')}]")
    for name, values in samples.items():
        ordered = sorted(values)
        p90 = ordered[int(len(ordered) * 0.9) - 1]
        print(f"  {name:48s} {statistics.median(values):7.2f} / {p90:7.2f}")
    base = statistics.median(samples["tool: unsandboxed (mode off)"])
    for name in ("tool: workspace-write", "tool: workspace-write, network false"):
        print(f"  overhead, {name[6:]:40s} {statistics.median(samples[name]) - base:+7.2f}")
    shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
