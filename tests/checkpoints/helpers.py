"""Small helpers of the checkpoint tests: scripted tool calls, a project's files as a dict, git."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

from atomic.core.engine.session import AgentSession


def bash_call(command: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "bash", "arguments": {"command": command}}]}


def write_call(path: str, content: str) -> dict[str, Any]:
    return {"toolCalls": [{"name": "write", "arguments": {"path": path, "content": content}}]}


async def prompt_and_wait(session: AgentSession, text: str) -> None:
    await session.prompt(text)
    await session.wait_idle()
    await session.checkpoints.settle()


def tree_of(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under `root` (outside .git) with its bytes and permission bits."""
    out: dict[str, tuple[bytes, int]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = Path(folder) / name
            out[path.relative_to(root).as_posix()] = (path.read_bytes(), stat.S_IMODE(path.lstat().st_mode))
    return out


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout
