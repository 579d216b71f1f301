"""/fork: pick one of your earlier messages; returns its entry id (the caller forks there, the text goes to the editor)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets.option_list import Option

from atomic.tui.formatting import first_line
from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import Engine, ForkMessage


class ForkPickerScreen(PickerScreen[str]):
    TITLE_TEXT = "Fork from a message"
    PLACEHOLDER = "Search your messages"
    EMPTY_TEXT = "No user messages to fork from"
    HINT = "↑↓ move · enter fork here (the message goes back to the editor) · esc close"

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self._messages: list[ForkMessage] = engine.sessions.fork_messages()
        self._text_by_id = {m.entry_id: m.text for m in self._messages}

    def build_options(self, query: str) -> list[Option]:
        numbered = list(enumerate(self._messages, start=1))
        items = [(m.text, (n, m)) for n, m in numbered]
        matches = fuzzy_filter(query, items)
        return [
            Option(
                Content.assemble((f"{n:>3}. ", "$foreground-muted"), first_line(m.text, 100)),
                id=m.entry_id,
            )
            for n, m in matches
        ]

    def preferred_option_id(self) -> str | None:
        # The latest message is the usual choice: "redo my last request differently".
        return self._messages[-1].entry_id if self._messages else None

    def detail_text(self, option_id: str | None) -> str | Content:
        text = self._text_by_id.get(option_id or "", "")
        lines = text.count("\n") + 1 if text else 0
        return f"{lines} lines" if lines > 1 else ""

    async def choose(self, option_id: str) -> None:
        self.dismiss(option_id)
