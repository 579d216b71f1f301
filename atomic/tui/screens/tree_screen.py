"""/tree: the whole session tree; Enter returns the chosen entry (the caller continues from it), `l` labels it,
`f` filters."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from atomic.tui.screens._picker import AtomicModal
from atomic.tui.screens.tree_view import FILTER_MODES, TreeRow, build_rows, visible_leaf_row

if TYPE_CHECKING:
    from atomic.core.contract import Engine

_KIND_STYLES = {
    "user": "bold",
    "assistant": "",
    "tool": "$foreground-muted",
    "compaction": "$text-warning",
    "summary": "$text-warning",
    "meta": "$foreground-muted",
}


@dataclass(frozen=True)
class TreeChoice:
    """The entry picked in /tree: the session continues from there."""

    entry_id: str


class TreeScreen(AtomicModal[TreeChoice]):
    DEFAULT_CSS = """
    TreeScreen #tree-list { max-height: 30; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("l", "label", "Label", show=False),
        Binding("f", "cycle_filter", "Filter", show=False),
    ]
    HINT = "↑↓ move · enter continue from here · l label · f filter · esc close"

    def __init__(self, engine: Engine, filter_mode: str = "default") -> None:
        super().__init__()
        self.engine = engine
        self.filter_mode = filter_mode
        self.rows: list[TreeRow] = []
        self.labeling: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel"):
            yield Static("", id="tree-info", classes="panel-info")
            yield OptionList(id="tree-list")
            label_input = Input(id="tree-label", placeholder="Label (empty removes) · enter save · esc cancel")
            label_input.display = False
            yield label_input
            yield Static(self.HINT, classes="panel-hint")

    def on_mount(self) -> None:
        self.query_one(".atomic-panel").border_title = "Session tree"
        self.rebuild()
        self.query_one("#tree-list", OptionList).focus()

    def _prompt(self, row: TreeRow) -> Content:
        style = _KIND_STYLES.get(row.kind, "")
        if not row.on_path:
            style = (style + " dim").strip()
        parts: list[str | tuple[str, str]] = [(row.prefix, "$foreground-muted")]
        parts.append(("● " if row.on_path else "○ ", "$text-accent" if row.on_path else "$foreground-muted"))
        parts.append((row.text, style))
        if row.label:
            parts.append((f"  [{row.label}]", "$text-secondary"))
        if row.is_leaf:
            parts.append(("  ← current", "bold $text-success"))
        return Content.assemble(*parts)

    def rebuild(self, keep: str | None = None) -> None:
        self.rows = build_rows(self.engine.sessions.tree(), self.filter_mode)
        option_list = self.query_one("#tree-list", OptionList)
        option_list.set_options([Option(self._prompt(row), id=row.entry_id) for row in self.rows])
        if self.rows:
            index = next((i for i, r in enumerate(self.rows) if r.entry_id == keep), None)
            option_list.highlighted = index if index is not None else visible_leaf_row(self.rows)
            option_list.scroll_to_highlight()
        self.query_one("#tree-info", Static).update(
            Content.assemble("Filter: ", (self.filter_mode, "$text-accent"), f" · {len(self.rows)} entries")
        )

    def _highlighted_id(self) -> str | None:
        option = self.query_one("#tree-list", OptionList).highlighted_option
        return option.id if option is not None else None

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the label box is open, letters are typed into it.
        if self.labeling is not None and action in ("label", "cycle_filter"):
            return False
        return True

    def action_cycle_filter(self) -> None:
        position = FILTER_MODES.index(self.filter_mode) if self.filter_mode in FILTER_MODES else -1
        self.filter_mode = FILTER_MODES[(position + 1) % len(FILTER_MODES)]
        self.rebuild(keep=self._highlighted_id())

    def action_label(self) -> None:
        entry_id = self._highlighted_id()
        if entry_id is None:
            return
        self.labeling = entry_id
        row = next((r for r in self.rows if r.entry_id == entry_id), None)
        label_input = self.query_one("#tree-label", Input)
        label_input.value = (row.label or "") if row else ""
        label_input.display = True
        label_input.focus()

    def _close_label(self) -> None:
        self.labeling = None
        label_input = self.query_one("#tree-label", Input)
        label_input.display = False
        self.query_one("#tree-list", OptionList).focus()

    def action_cancel(self) -> None:
        if self.labeling is not None:
            self._close_label()
        else:
            self.dismiss(None)

    @on(Input.Submitted, "#tree-label")
    def _label_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        entry_id = self.labeling
        self._close_label()
        if entry_id is None:
            return
        try:
            self.engine.sessions.set_label(entry_id, event.value.strip() or None)
        except Exception as exc:
            self.notify(str(exc), title="Label not set", severity="error")
            return
        self.rebuild(keep=entry_id)

    @on(OptionList.OptionSelected, "#tree-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(TreeChoice(event.option.id))
