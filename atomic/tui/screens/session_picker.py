"""/resume: sessions of this folder (or all folders, Tab), newest first; Enter returns the chosen one."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets.option_list import Option

from atomic.tui.formatting import first_line, format_age, format_size, tilde
from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import Engine, SessionSummary

_TITLE_WIDTH = 60


@dataclass(frozen=True)
class SessionChoice:
    """The session picked in /resume: its file, and the title a notification shows."""

    path: str
    title: str


class SessionPickerScreen(PickerScreen[SessionChoice]):
    TITLE_TEXT = "Resume session"
    PLACEHOLDER = "Search by name, first message or id"
    EMPTY_TEXT = "No sessions found"
    HINT = "↑↓ move · enter open · tab this folder/all · esc close"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "toggle_scope", "Scope", show=False, priority=True)]

    def __init__(self, engine: Engine, *, all_folders: bool = False, now: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.engine = engine
        self.all_folders = all_folders or engine.sessions.session_dir is None
        # Injected so snapshots show the same "2h ago" every run.
        self._now = now
        self._infos: dict[str, SessionSummary] = {}
        self._listing_cache: dict[bool, list[SessionSummary]] = {}

    def _load(self) -> list[SessionSummary]:
        # Listing reads every file's head: do it once per scope, not on every keystroke.
        cached = self._listing_cache.get(self.all_folders)
        if cached is None:
            cached = self.engine.sessions.list_sessions(all_folders=self.all_folders)
            self._listing_cache[self.all_folders] = cached
        return cached

    def _current_path(self) -> str | None:
        path = self.engine.session_file
        return str(path) if path is not None else None

    def build_options(self, query: str) -> list[Option]:
        infos = self._load()
        self._infos = {str(i.path): i for i in infos}
        items = [(f"{i.name or ''} {i.first_message} {i.id} {i.cwd if self.all_folders else ''}", i) for i in infos]
        matches: list[SessionSummary] = fuzzy_filter(query, items)
        now = self._now()
        current = self._current_path()
        return [self._row(info, now, str(info.path) == current) for info in matches]

    def _row(self, info: SessionSummary, now: float, current: bool) -> Option:
        title = info.name or info.first_message or "(no messages)"
        title = first_line(title, _TITLE_WIDTH).ljust(_TITLE_WIDTH)
        title_style = "bold" if info.name else ("$foreground-muted" if not info.first_message else "")
        parts: list[str | tuple[str, str]] = [
            (title, title_style),
            ("  " + format_age(now - info.modified).rjust(8), "$foreground-muted"),
            ("  " + format_size(info.size).rjust(9), "$foreground-muted"),
        ]
        if current:
            parts.append(("  ✓ current", "$text-success"))
        if self.all_folders and info.cwd:
            parts.append(("  " + tilde(info.cwd), "$text-accent"))
        return Option(Content.assemble(*parts), id=str(info.path))

    def info_text(self) -> str | Content:
        scope = "all folders" if self.all_folders else "this folder"
        count = len(self._infos)
        return Content.assemble("Scope: ", (scope, "$text-accent"), f" · {count} session{'' if count == 1 else 's'}")

    def detail_text(self, option_id: str | None) -> str | Content:
        info = self._infos.get(option_id or "")
        if info is None:
            return ""
        text = f"id {info.id[:8]}"
        if info.name and info.first_message:
            text += " · " + first_line(info.first_message, 80)
        return text

    def preferred_option_id(self) -> str | None:
        return None

    def action_toggle_scope(self) -> None:
        if self.engine.sessions.session_dir is None:
            return
        self.all_folders = not self.all_folders
        self.refresh_options()

    async def choose(self, option_id: str) -> None:
        info = self._infos[option_id]
        if option_id == self._current_path():
            self.dismiss(None)
            return
        self.dismiss(SessionChoice(option_id, first_line(info.name or info.first_message or info.id, 60)))
