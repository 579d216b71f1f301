"""The model's to-do list above the editor: one line of progress, the items below it unless folded."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from atomic.core.contract import TodoItem

_MARKS = {"pending": ("○ ", "$text-muted"), "in_progress": ("◐ ", "$accent"), "completed": ("● ", "$success")}


class TodoPanel(Static):
    DEFAULT_CSS = """
    TodoPanel { height: auto; max-height: 12; padding: 0 1; display: none; }
    TodoPanel.-active { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.items: tuple[TodoItem, ...] = ()
        self.folded = False

    def show(self, items: Sequence[TodoItem]) -> None:
        self.items = tuple(items)
        self._draw()

    def toggle(self) -> None:
        self.folded = not self.folded
        self._draw()

    def _draw(self) -> None:
        items = self.items
        if not items:
            self.remove_class("-active")
            self.update("")
            return
        done = sum(1 for item in items if item.status == "completed")
        current = next((item.content for item in items if item.status == "in_progress"), None)
        head = Content.assemble(
            ("To-do ", "bold"),
            (f"{done}/{len(items)} done", "$text-muted"),
            (f" · {current}" if current and self.folded else "", "$accent"),
            (" (alt+t to unfold)" if self.folded else "", "$text-muted italic"),
        )
        lines = [head]
        if not self.folded:
            for item in items:
                mark, style = _MARKS[item.status]
                text_style = "$text-muted strike" if item.status == "completed" else ""
                lines.append(Content.assemble((mark, style), (item.content, text_style)))
        self.update(Content("\n").join(lines))
        self.add_class("-active")
