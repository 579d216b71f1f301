"""What the sandbox allows one command (or one write) to do, computed from the settings.

One policy serves every mechanism: the Linux launcher (bubblewrap), the macOS Seatbelt profile and the
in-process check of the write and edit tools, so the three never disagree about a path.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from atomic.core.settings import SandboxMode, SandboxSettings

SANDBOX_MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
Escalation = Literal["ask", "never"]

# Inside the working folder, the files that decide what the next start runs or trusts: git runs hooks
# and reads `core.hooksPath`/aliases from the config; `.atomic/` and `.mcp.json` hold project settings,
# extensions and MCP servers. A command that could write them would widen its own rights.
PROTECTED_NAMES: tuple[str, ...] = (".git/hooks", ".git/config", ".atomic", ".mcp.json")


def parse_sandbox_mode(value: str) -> SandboxMode:
    for mode in SANDBOX_MODES:
        if value == mode:
            return mode
    raise ValueError(f"Unknown sandbox mode {value!r}; use one of {', '.join(SANDBOX_MODES)}")


def _real(path: Path) -> Path:
    """The path with symlinks resolved as far as it exists (a root given as `/tmp` may be `/private/tmp`)."""
    return Path(os.path.realpath(path))


def temp_roots() -> tuple[Path, ...]:
    """The system temp folder (TMPDIR honoured) and /tmp, each once."""
    found: list[Path] = []
    for candidate in (Path(tempfile.gettempdir()), Path("/tmp")):
        real = _real(candidate)
        if real.is_dir() and real not in found:
            found.append(real)
    return tuple(found)


@dataclass(frozen=True)
class SandboxPolicy:
    """The rules for the model's commands in one working folder. `mode == "off"` means no sandbox."""

    mode: SandboxMode
    network: bool
    cwd: Path
    # Where writes may go (resolved, existing folders only), and the paths inside them that stay read-only.
    writable_roots: tuple[Path, ...]
    protected: tuple[Path, ...]
    escalation: Escalation = "ask"

    @property
    def active(self) -> bool:
        return self.mode != "off"

    def write_refusal(self, path: Path | str) -> str | None:
        """Why the sandbox forbids writing `path` (None: allowed). Symlinks are followed as a write would."""
        if not self.active:
            return None
        target = _real(Path(path) if Path(path).is_absolute() else self.cwd / path)
        for protected in self.protected:
            if _within(target, protected):
                return (
                    f"Sandbox ({self.mode}): {target} is protected ({protected.relative_to(self.cwd)} in the working "
                    "folder can never be written from the sandbox)."
                )
        if any(_within(target, root) for root in self.writable_roots):
            return None
        roots = ", ".join(str(root) for root in self.writable_roots) or "none"
        return f"Sandbox ({self.mode}): {target} is outside the writable roots ({roots})."

    def describe_writes(self) -> str:
        """One sentence naming what may be written, for tool results that report a blocked write."""
        roots = ", ".join(str(root) for root in self.writable_roots)
        if self.mode == "read-only":
            return f"sandbox.mode is read-only: only the temp folder ({roots}) is writable"
        names = ", ".join(PROTECTED_NAMES)
        return f"sandbox.mode is workspace-write: only {roots} are writable, and never {names} of the working folder"


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def protected_paths(cwd: Path) -> tuple[Path, ...]:
    """The protected names under `cwd`, resolved; a `.git` file (a worktree's pointer) is protected itself."""
    real_cwd = _real(cwd)
    found = [real_cwd / name for name in PROTECTED_NAMES]
    git = real_cwd / ".git"
    if git.is_file():
        found = [path for path in found if not _within(path, git)] + [git]
    return tuple(found)


def policy_from_settings(
    settings: SandboxSettings, cwd: Path, *, mode: SandboxMode | None = None, home: Path | None = None
) -> SandboxPolicy:
    """The policy for `cwd`: `mode` (the `--sandbox` flag) wins over `sandbox.mode`."""
    chosen = mode or settings.mode
    real_cwd = _real(cwd)
    roots: list[Path] = []
    if chosen == "workspace-write":
        roots.append(real_cwd)
    roots.extend(temp_roots())
    if chosen == "workspace-write":
        user_home = home or Path.home()
        for entry in settings.writable_roots:
            expanded = Path(entry[2:] if entry.startswith("~/") else entry)
            if entry == "~":
                expanded = user_home
            elif entry.startswith("~/"):
                expanded = user_home / expanded
            elif not expanded.is_absolute():
                expanded = real_cwd / expanded
            real = _real(expanded)
            if real.is_dir() and real not in roots:
                roots.append(real)
    return SandboxPolicy(
        mode=chosen,
        network=settings.network,
        cwd=real_cwd,
        writable_roots=tuple(roots),
        # Also in read-only: a working folder inside the temp folder is writable there.
        protected=protected_paths(cwd) if chosen != "off" else (),
        escalation=settings.escalation,
    )
