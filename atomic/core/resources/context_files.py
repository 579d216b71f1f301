"""AGENTS.md / CLAUDE.md discovery: the project instructions that go into the system prompt."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

# Checked in this order in each folder; only the first that exists is used.
CONTEXT_FILE_NAMES: tuple[str, ...] = ("AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")


@dataclass(frozen=True)
class ContextFile:
    path: Path
    content: str


def find_context_file(folder: Path) -> Path | None:
    """The first existing context file name in `folder`, or None."""
    for name in CONTEXT_FILE_NAMES:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _folders_root_to(cwd: Path) -> list[Path]:
    resolved = Path(os.path.abspath(cwd))
    return [*reversed(resolved.parents), resolved]


def project_context_paths(cwd: Path, agent_dir: Path) -> list[Path]:
    """The project's context files (every folder from `/` down to `cwd`), without the agent dir's own."""
    own = find_context_file(Path(agent_dir).expanduser())
    own_real = os.path.realpath(own) if own is not None else None
    found: list[Path] = []
    for folder in _folders_root_to(cwd):
        path = find_context_file(folder)
        if path is not None and os.path.realpath(path) != own_real:
            found.append(Path(os.path.abspath(path)))
    return found


def load_context_files(cwd: Path, agent_dir: Path, *, include_project: bool = True) -> list[ContextFile]:
    """Global instructions (agent dir) first, then every folder from `/` down to `cwd`.

    `include_project=False` (an untrusted project) keeps only the agent dir's global file: an
    AGENTS.md anywhere above the working folder may come with what was cloned, so it is the project's.

    Outer folders come first so that more specific (deeper) instructions are read last and
    can refine the general ones. A file reachable twice (e.g. cwd is the agent dir, or a
    symlink) is included once; files that cannot be read as text are skipped.
    """
    seen: set[str] = set()
    found: list[ContextFile] = []
    folders = [Path(agent_dir).expanduser(), *(_folders_root_to(cwd) if include_project else [])]
    for folder in folders:
        path = find_context_file(folder)
        if path is None:
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        try:
            content = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        seen.add(real)
        found.append(ContextFile(path=Path(os.path.abspath(path)), content=content))
    return found
