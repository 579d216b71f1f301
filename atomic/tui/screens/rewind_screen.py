"""/rewind: pick one of the branch's prompts (with how many files its run changed), then what to
restore to before it: code and conversation, conversation only, code only, or nothing. The code
choices list the files a restore would change first. /tree and /fork ask the same about files.

The screens only return the choice; atomic/tui/rewind_flow.py applies it through the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from textual.content import Content
from textual.widgets.option_list import Option

from atomic.tui.formatting import first_line
from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import ChangedFile, RewindPoint

RewindAction = Literal["both", "conversation", "code", "cancel"]
# How many changed files the choice screen lists before "and N more".
LISTED_FILES = 12
_STATUS_MARK = {"added": "+", "modified": "~", "deleted": "-"}


def files_word(count: int) -> str:
    return "1 file" if count == 1 else f"{count} files"


def file_list(files: tuple[ChangedFile, ...]) -> str:
    """What a code restore would do, one line per file (files created since are deleted)."""
    if not files:
        return "The files are as they were then: nothing to restore."
    actions = {"added": "delete", "modified": "restore", "deleted": "bring back"}
    lines = [f"  {_STATUS_MARK[f.status]} {f.path}  ({actions[f.status]})" for f in files[:LISTED_FILES]]
    if len(files) > LISTED_FILES:
        lines.append(f"  … and {len(files) - LISTED_FILES} more")
    return f"A code restore changes {files_word(len(files))}:\n" + "\n".join(lines)


class RewindScreen(PickerScreen[str]):
    """The prompts of the current branch, newest highlighted; returns the chosen user message's id."""

    TITLE_TEXT = "Rewind to before a prompt"
    PLACEHOLDER = "Search your prompts"
    EMPTY_TEXT = "No prompts to rewind to"
    HINT = "↑↓ move · enter choose what to restore · esc close"

    def __init__(self, points: list[RewindPoint]) -> None:
        super().__init__()
        self._points = points

    def build_options(self, query: str) -> list[Option]:
        numbered = list(enumerate(self._points, start=1))
        matches = fuzzy_filter(query, [(p.text, (n, p)) for n, p in numbered])
        options = []
        for n, point in matches:
            changed = files_word(point.files) + " changed" if point.files else "no file changes"
            label = Content.assemble(
                (f"{n:>3}. ", "$foreground-muted"), first_line(point.text, 80), (f"  · {changed}", "$foreground-muted")
            )
            options.append(Option(label, id=point.entry_id))
        return options

    def preferred_option_id(self) -> str | None:
        return self._points[-1].entry_id if self._points else None

    async def choose(self, option_id: str) -> None:
        self.dismiss(option_id)


class RestoreChoiceScreen(PickerScreen[RewindAction]):
    """What to restore to before one prompt; the file list shows what the code choices change."""

    SEARCHABLE = False
    HINT = "↑↓ move · enter confirm · esc cancel"
    CHOICES: ClassVar[dict[RewindAction, str]] = {
        "both": "Restore code and conversation",
        "conversation": "Restore conversation only",
        "code": "Restore code only",
        "cancel": "Cancel",
    }

    def __init__(
        self,
        prompt_text: str,
        files: tuple[ChangedFile, ...] | None,
        actions: tuple[RewindAction, ...] = ("both", "conversation", "code", "cancel"),
        labels: dict[RewindAction, str] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = f"Before: {first_line(prompt_text, 60)}"
        # None: no checkpoint applies, so the code choices are offered but disabled.
        self._files = files
        self._actions = actions
        self._labels = {**self.CHOICES, **(labels or {})}

    def info_text(self) -> str:
        if self._files is None:
            return "No checkpoint was recorded for this prompt: only the conversation can go back."
        return file_list(self._files)

    def build_options(self, query: str) -> list[Option]:
        code_possible = bool(self._files)
        return [
            Option(self._labels[action], id=action, disabled=action in ("both", "code") and not code_possible)
            for action in self._actions
        ]

    async def choose(self, option_id: str) -> None:
        for action in self._actions:
            if action == option_id:
                self.dismiss(action)
