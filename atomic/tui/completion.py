"""Completion popups: `/` commands with descriptions and `@` fuzzy file paths (respecting .gitignore)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from pathspec import PathSpec  # loaded only when a folder has a .gitignore

MAX_ITEMS = 10
MAX_FILES = 20000
_AT_TOKEN = re.compile(r"(?:^|\s)@([^\s]*)$")
_ALWAYS_SKIPPED = {".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


@dataclass(frozen=True)
class CompletionItem:
    value: str  # what goes into the editor
    label: str
    description: str = ""


@dataclass(frozen=True)
class CompletionContext:
    kind: str  # "slash", "file" or "args" (an extension command's argument)
    query: str
    start: tuple[int, int]  # where the replaced token starts (row, column)
    end: tuple[int, int]
    command: str = ""


def fuzzy_score(query: str, candidate: str) -> int | None:
    """Higher is better; None when `query` is not a subsequence of `candidate` (case-insensitive)."""
    if not query:
        return 0
    q, c = query.lower(), candidate.lower()
    if c.startswith(q):
        return 1000 - len(c)
    if q in c:
        return 800 - c.index(q) - len(c) // 4
    score, position, previous = 0, 0, -2
    for char in q:
        found = c.find(char, position)
        if found < 0:
            return None
        score += 10 if found == previous + 1 else 1
        if found == 0 or c[found - 1] in "/._- ":
            score += 5
        previous, position = found, found + 1
    return score - len(c) // 8


def find_context(text: str, row: int, column: int, arg_commands: set[str] | None = None) -> CompletionContext | None:
    lines = text.split("\n")
    line = lines[row] if row < len(lines) else ""
    before = line[:column]
    if row == 0 and text.startswith("/") and not any(ch.isspace() for ch in before):
        return CompletionContext("slash", before[1:], (0, 0), (0, column))
    if row == 0 and arg_commands and before.startswith("/") and " " in before:
        name, prefix = before[1:].split(" ", 1)
        if name in arg_commands:
            return CompletionContext("args", prefix, (0, len(name) + 2), (0, column), command=name)
    match = _AT_TOKEN.search(before)
    if match:
        start = column - len(match.group(1)) - 1
        return CompletionContext("file", match.group(1), (row, start), (row, column))
    return None


def rank(items: list[CompletionItem], query: str) -> list[CompletionItem]:
    scored = []
    for index, item in enumerate(items):
        score = fuzzy_score(query, item.label)
        if score is not None:
            scored.append((-score, index, item))
    scored.sort()
    return [item for _, _, item in scored[:MAX_ITEMS]]


class FileIndex:
    """Project files, listed once on first use (and again after `invalidate`)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: list[str] | None = None

    def invalidate(self) -> None:
        self._files = None

    def files(self) -> list[str]:
        if self._files is None:
            self._files = list_project_files(self.root)
        return self._files

    def complete(self, query: str) -> list[CompletionItem]:
        items = [CompletionItem("@" + path, path) for path in self.files()]
        return rank(items, query)


def _gitignore_spec(folder: Path) -> PathSpec | None:
    path = folder / ".gitignore"
    if not path.is_file():
        return None
    import pathspec

    try:
        return pathspec.PathSpec.from_lines("gitignore", path.read_text(encoding="utf-8").splitlines())
    except (OSError, ValueError):
        return None


def list_project_files(root: Path) -> list[str]:
    """Files and folders under `root`, relative, skipping what any .gitignore on the way ignores."""
    out: list[str] = []
    specs: list[tuple[Path, PathSpec]] = []
    for folder, dirnames, filenames in os.walk(root):
        here = Path(folder)
        spec = _gitignore_spec(here)
        if spec is not None:
            specs.append((here, spec))
        active = [(base, s) for base, s in specs if here == base or base in here.parents]

        def ignored(name: str, is_dir: bool, here: Path = here, active: list[tuple[Path, PathSpec]] = active) -> bool:
            for base, s in active:
                rel = (here / name).relative_to(base).as_posix() + ("/" if is_dir else "")
                if s.match_file(rel):
                    return True
            return False

        dirnames[:] = sorted(d for d in dirnames if d not in _ALWAYS_SKIPPED and not ignored(d, True))
        rel_folder = here.relative_to(root).as_posix()
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for d in dirnames:
            out.append(prefix + d + "/")
        for f in sorted(filenames):
            if not ignored(f, False):
                out.append(prefix + f)
        if len(out) >= MAX_FILES:
            break
    return out


class CompletionPopup(OptionList):
    PAINT_AT_ONCE = True  # it follows the keys typed in the editor (main_screen.py)
    DEFAULT_CSS = """
    CompletionPopup {
        display: none; height: auto; max-height: 12; margin: 0 1;
        border: round $accent; background: $surface; padding: 0;
    }
    CompletionPopup.-open { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.can_focus = False
        self.items: list[CompletionItem] = []
        self.context: CompletionContext | None = None
        # The editor text and cursor the items were computed for (see CompletionFlow.popup_key).
        self.source: tuple[str, tuple[int, int]] | None = None

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def open_with(self, items: list[CompletionItem], context: CompletionContext) -> None:
        self.items = items
        self.context = context
        if not items:
            self.close()
            return
        width = max(len(i.label) for i in items)
        self.set_options(
            Option(Content.assemble((item.label.ljust(width), "bold"), "  ", (item.description, "$text-muted")))
            for item in items
        )
        self.highlighted = 0
        self.add_class("-open")

    def close(self) -> None:
        self.remove_class("-open")
        self.context = None

    def move(self, step: int) -> None:
        if not self.items:
            return
        current = self.highlighted or 0
        self.highlighted = (current + step) % len(self.items)

    def selected(self) -> CompletionItem | None:
        if not self.items or self.highlighted is None:
            return None
        return self.items[self.highlighted]
