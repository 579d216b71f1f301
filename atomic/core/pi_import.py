"""`atomic --import-pi`: copy what a pi user already configured into Atomic's agent dir.

Copies models.json, settings.json, auth.json, prompt templates and skills. It never overwrites a
file Atomic already has and asks nothing, so scripts can run it; each file gets one report line.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

# Top-level files, then folders copied file by file.
PI_FILES = ("models.json", "settings.json", "auth.json")
PI_FOLDERS = ("prompts", "skills")
# auth.json holds keys: it stays private whatever mode pi's copy has.
PRIVATE_FILES = frozenset({"auth.json"})


@dataclass(frozen=True)
class ImportLine:
    action: Literal["copied", "skipped", "failed"]
    relative_path: str
    reason: str = ""

    def render(self) -> str:
        tail = f" ({self.reason})" if self.reason else ""
        return f"{self.action} {self.relative_path}{tail}"


def pi_agent_dir() -> Path:
    """pi's agent dir: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`."""
    value = os.environ.get("PI_CODING_AGENT_DIR")
    return Path(value).expanduser() if value else Path.home() / ".pi" / "agent"


def same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def files_to_import(source: Path) -> list[Path]:
    """Relative paths of the regular files pi keeps that Atomic reads, in a stable order."""
    found = [Path(name) for name in PI_FILES if (source / name).is_file()]
    for folder in PI_FOLDERS:
        root = source / folder
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                found.append(path.relative_to(source))
    return found


def _copy_without_overwrite(source: Path, target: Path, mode: int) -> bool:
    """Write `target` whole or not at all; False when it already exists (never replaced)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes()
    fd, tmp = tempfile.mkstemp(dir=str(target.parent), prefix=f".{target.name}.", suffix=".import")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # link() fails if the name exists, so a file created meanwhile is never clobbered.
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def import_from_pi(source: Path, target: Path) -> list[ImportLine]:
    lines: list[ImportLine] = []
    for relative in files_to_import(source):
        destination = target / relative
        name = relative.as_posix()
        if destination.exists():
            lines.append(ImportLine("skipped", name, f"already in {target}"))
            continue
        private = name in PRIVATE_FILES
        mode = 0o600 if private else stat.S_IMODE((source / relative).stat().st_mode) | 0o600
        try:
            if private:
                target.mkdir(parents=True, exist_ok=True, mode=0o700)
            copied = _copy_without_overwrite(source / relative, destination, mode)
        except OSError as exc:
            lines.append(ImportLine("failed", name, exc.strerror or str(exc)))
            continue
        lines.append(ImportLine("copied", name) if copied else ImportLine("skipped", name, f"already in {target}"))
    return lines


def run_import(target: Path) -> tuple[list[str], int]:
    """The report lines and exit code of `atomic --import-pi` into `target`."""
    source = pi_agent_dir()
    if not os.environ.get("ATOMIC_CODING_AGENT_DIR") and os.environ.get("PI_CODING_AGENT_DIR"):
        return [f"Atomic already uses pi's folder {source} (PI_CODING_AGENT_DIR): nothing to import."], 0
    if same_folder(source, target):
        return [f"Atomic's agent dir is pi's folder {source}: nothing to import."], 0
    if not source.is_dir():
        return [f"No pi agent dir at {source}: nothing to import."], 0
    lines = import_from_pi(source, target)
    if not lines:
        return [f"Nothing to import from {source}."], 0
    report = [line.render() for line in lines]
    copied = sum(1 for line in lines if line.action == "copied")
    report.append(f"Imported {copied} of {len(lines)} files from {source} into {target}.")
    return report, 1 if any(line.action == "failed" for line in lines) else 0
