"""Where a write or edit really lands, and whether that place always needs the user's yes.

Paths are resolved with `realpath`: a symlinked file or folder counts where it points. Protected
places widen what the next start trusts or runs (git hooks and config, Atomic's own folders, MCP
and agent configuration, shell start-up files), so in every mode but yolo a write there is asked
about, whatever "always" or an allow rule said. `accept-edits` writes without asking only inside
the working folder and the temp folder.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

# A folder of this name anywhere on the path (the project's or a nested one).
PROTECTED_FOLDERS = (".git", ".atomic", ".claude", ".agents")
PROTECTED_FILES = (".mcp.json",)
# Read by a shell (or its relatives) at start: a line there runs in every later terminal.
SHELL_STARTUP_FILES = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
    ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login", ".kshrc", ".mkshrc", ".inputrc", ".envrc",
    ".gitconfig",
)
# Under the home folder: read at every start of a shell, a login, a git command or an ssh connection.
SHELL_STARTUP_FOLDERS = (
    Path(".config") / "fish", Path(".config") / "environment.d", Path(".config") / "git",
    Path(".config") / "systemd", Path(".config") / "autostart", Path(".ssh"),
)


@dataclass(frozen=True)
class WriteTarget:
    given: str  # the path as the model gave it
    absolute: Path  # joined with the working folder, not resolved
    resolved: Path  # realpath: where the bytes land
    through_symlink: bool
    inside_workspace: bool  # under the working folder or the temp folder (both resolved)
    protected: str | None  # why it always asks, or None


def _is_under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def protection_reason(path: Path, agent_dir: Path, home: Path) -> str | None:
    """Why writing `path` (absolute, resolved or not) always needs a yes; None when it does not."""
    if _is_under(path, agent_dir):
        return "Atomic's agent folder"
    parts = path.parts
    for folder in PROTECTED_FOLDERS:
        if folder in parts[:-1] or (parts and parts[-1] == folder):
            return f"a {folder}/ folder"
    if path.name in PROTECTED_FILES:
        return f"an {path.name} file"
    if path.name in SHELL_STARTUP_FILES:
        return "a shell start-up file"
    for startup_folder in SHELL_STARTUP_FOLDERS:
        if _is_under(path, home / startup_folder):
            return "a shell start-up file"
    return None


def _realpath(path: Path) -> Path:
    return Path(os.path.realpath(path))


def write_target(given: str, cwd: Path, agent_dir: Path, home: Path | None = None) -> WriteTarget:
    """Where a write of `given` (relative to `cwd`, `~` expanded) lands and how it must be approved."""
    from atomic.core.tools.path_utils import resolve_path

    absolute = resolve_path(given, cwd)
    if not absolute.is_absolute():
        absolute = cwd / absolute
    resolved = _realpath(absolute)
    home = home if home is not None else Path.home()
    # Any difference between the path and where it lands is a symlink on the way.
    through_symlink = resolved != absolute
    real_agent = _realpath(agent_dir)
    reason = (
        protection_reason(absolute, agent_dir, home)
        or protection_reason(resolved, real_agent, _realpath(home))
    )
    workspaces = (_realpath(cwd), _realpath(Path(tempfile.gettempdir())))
    return WriteTarget(
        given=given,
        absolute=absolute,
        resolved=resolved,
        through_symlink=through_symlink,
        inside_workspace=any(_is_under(resolved, folder) for folder in workspaces),
        protected=reason,
    )


def word_names_protected_path(word: str, cwd: Path, agent_dir: Path, home: Path) -> str | None:
    """Whether a literal word of a bash command names a protected place (checked lexically)."""
    if not word or word.startswith("-") and "=" not in word:
        return None
    value = word.split("=", 1)[1] if word.startswith("-") else word
    if not any(marker in value for marker in (*PROTECTED_FOLDERS, *PROTECTED_FILES, *SHELL_STARTUP_FILES, "/")):
        return None
    path = Path(os.path.expanduser(value))
    if not path.is_absolute():
        path = cwd / path
    normal = Path(os.path.normpath(path))
    return protection_reason(normal, agent_dir, home) or protection_reason(_realpath(normal), _realpath(agent_dir), home)
