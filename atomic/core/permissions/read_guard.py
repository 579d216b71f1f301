"""Files the read-only tools (read, grep, find, ls) never hand to the model.

The agent dir's `auth.json` holds the user's keys and `/proc/<pid>/environ` every variable of a
process (Atomic's own included): reading either would send the secrets to the provider and into
the session file. `Read(...)` deny rules hide more (docs/security.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from atomic.core.permissions.rules import RuleSet

_PROC_ENVIRON = re.compile(r"/proc/[^/]+/(task/[^/]+/)?environ")
AUTH_FILE = "auth.json"

PathGuard = Callable[[Path], "str | None"]


def secret_path_reason(path: Path, agent_dir: Path) -> str | None:
    """Why `path` (absolute) is never read, or None."""
    for candidate in {str(path), os.path.realpath(path)}:
        if _PROC_ENVIRON.fullmatch(candidate):
            return f"{path} holds a process's environment (its keys and tokens)"
    real = Path(os.path.realpath(path))
    for folder in {agent_dir, Path(os.path.realpath(agent_dir))}:
        if real.name.startswith(AUTH_FILE) and real.parent == folder:
            return f"{path} holds Atomic's stored credentials"
        if path.name.startswith(AUTH_FILE) and path.parent == folder:
            return f"{path} holds Atomic's stored credentials"
    return None


def read_guard(agent_dir: Path, cwd: Path, rules: RuleSet) -> PathGuard:
    """A check for one tool call: the reason a path is refused (or hidden from a listing), or None."""
    hiding = [rule for rule in rules.deny if rule.tool == "read" and rule.specifier is not None]

    def guard(path: Path) -> str | None:
        reason = secret_path_reason(path, agent_dir)
        if reason is not None:
            return f"Refused: {reason}."
        for rule in hiding:
            if rule.matches_path(path, cwd):
                return f"Denied by the permission rule {rule.text} (from the {rule.source} settings)."
        return None

    return guard
