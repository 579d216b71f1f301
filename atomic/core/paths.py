"""Where Atomic keeps its files."""

from __future__ import annotations

import os
from pathlib import Path


def agent_dir() -> Path:
    """`ATOMIC_CODING_AGENT_DIR` (or pi's alias), else `~/.atomic/agent`."""
    for var in ("ATOMIC_CODING_AGENT_DIR", "PI_CODING_AGENT_DIR"):
        value = os.environ.get(var)
        if value:
            return Path(value).expanduser()
    return Path.home() / ".atomic" / "agent"


def encode_cwd(cwd: Path) -> str:
    """`/home/me/proj` -> `--home-me-proj--` (the session folder name for a working directory)."""
    text = str(cwd).lstrip("/\\")
    for ch in "/\\:":
        text = text.replace(ch, "-")
    return f"--{text}--"


def default_session_dir(cwd: Path, flag: str | None = None, setting: str | None = None) -> Path:
    """The sessions folder of `cwd`, the one reading of its precedence: `--session-dir`, then
    ATOMIC_CODING_AGENT_SESSION_DIR, then the `sessionDir` setting, then pi's PI_CODING_AGENT_SESSION_DIR,
    then `<agent dir>/sessions/<encoded cwd>`."""
    chosen = (
        flag
        or os.environ.get("ATOMIC_CODING_AGENT_SESSION_DIR")
        or setting
        or os.environ.get("PI_CODING_AGENT_SESSION_DIR")
    )
    if chosen:
        return Path(chosen).expanduser()
    return agent_dir() / "sessions" / encode_cwd(cwd)
