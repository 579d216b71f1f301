"""A directory walk that honours .gitignore/.ignore files, the way ripgrep and fd do.

Hidden files are included, `.git` folders are always skipped, and ignore files apply whether or
not the folder is a git repository. Ignore files in the folders above the search root count too,
up to the enclosing repository root. Deeper ignore files override shallower ones, and a later
matching pattern (including a `!negation`) overrides an earlier one, as in git.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

IGNORE_FILE_NAMES = (".gitignore", ".ignore")
ALWAYS_SKIPPED_DIRS = frozenset({".git"})


@dataclass(frozen=True)
class _IgnoreRules:
    base: str  # absolute folder the patterns are relative to
    spec: pathspec.GitIgnoreSpec


def _load_rules(folder: str) -> _IgnoreRules | None:
    lines: list[str] = []
    for name in IGNORE_FILE_NAMES:
        try:
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as handle:
                lines.extend(handle.read().splitlines())
        except OSError:
            continue
    if not lines:
        return None
    import pathspec  # only the Python walk (no ripgrep) needs it: not imported at start-up

    return _IgnoreRules(folder, pathspec.GitIgnoreSpec.from_lines(lines))


def _ancestor_rules(root: str) -> list[_IgnoreRules]:
    """Rules from the folders above `root`, outermost first, stopping at a repository root."""
    collected: list[_IgnoreRules] = []
    current = root
    if os.path.exists(os.path.join(current, ".git")):
        return collected
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            # No repository above: ignore files outside the search root do not apply.
            return []
        current = parent
        rules = _load_rules(current)
        if rules is not None:
            collected.append(rules)
        if os.path.exists(os.path.join(current, ".git")):
            collected.reverse()
            return collected


def is_ignored(abs_path: str, is_dir: bool, rules: list[_IgnoreRules]) -> bool:
    ignored = False
    for rule in rules:
        relative = os.path.relpath(abs_path, rule.base).replace(os.sep, "/")
        if relative.startswith(".."):
            continue
        verdict = rule.spec.check_file(relative + "/" if is_dir else relative).include
        if verdict is not None:
            ignored = verdict
    return ignored


@dataclass(frozen=True)
class WalkEntry:
    path: str  # absolute
    relative: str  # posix, relative to the walk root
    is_dir: bool


def walk(root: Path | str, *, include_dirs: bool = False) -> Iterator[WalkEntry]:
    """Yield files (and folders if asked) under `root`, skipping ignored ones; symlinks are not followed."""
    root_str = os.path.abspath(str(root))
    base_rules = _ancestor_rules(root_str)
    stack: list[tuple[str, list[_IgnoreRules]]] = [(root_str, base_rules)]
    while stack:
        folder, inherited = stack.pop()
        own = _load_rules(folder)
        rules = [*inherited, own] if own is not None else inherited
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subfolders: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir and entry.name in ALWAYS_SKIPPED_DIRS:
                continue
            if is_ignored(entry.path, is_dir, rules):
                continue
            relative = os.path.relpath(entry.path, root_str).replace(os.sep, "/")
            if is_dir:
                subfolders.append(entry.path)
                if include_dirs:
                    yield WalkEntry(entry.path, relative, True)
            else:
                yield WalkEntry(entry.path, relative, False)
        stack.extend((sub, rules) for sub in reversed(subfolders))
