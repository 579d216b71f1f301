"""The project trust dialog: what the folder would load, and trust / trust once / don't trust.

Shown on the first start in an undecided folder that brings something, and by `/trust`. It only
returns the choice; atomic/tui/trust_flow.py saves it and reloads the session's project resources.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from atomic.core.project_offer import ProjectOffer
from atomic.core.trust import TrustDecision
from atomic.tui.formatting import tilde
from atomic.tui.screens._picker import PANEL_CSS

TrustChoice = Literal["trust", "once", "deny", "forget"]
# Most items shown per kind: a monorepo may hold hundreds of skills; the count says the rest.
ITEMS_PER_KIND = 4


def short_path(path: Path, cwd: Path) -> str:
    """Relative to the project when inside it, else with `~` for the home folder."""
    return str(path.relative_to(cwd)) if path.is_relative_to(cwd) else tilde(path)


def offer_lines(offer: ProjectOffer, cwd: Path) -> list[str]:
    if offer.empty:
        return ["This folder brings nothing for Atomic to load."]
    lines: list[str] = []
    for kind, items in offer.items(lambda path: short_path(path, cwd)):
        lines.append(f"{kind} ({len(items)}):")
        lines += [f"  {item}" for item in items[:ITEMS_PER_KIND]]
        if len(items) > ITEMS_PER_KIND:
            lines.append(f"  … and {len(items) - ITEMS_PER_KIND} more")
    return lines


class TrustScreen(ModalScreen[TrustChoice | None]):
    """Esc closes with None: nothing is saved and the current decision stays."""

    DEFAULT_CSS = (
        """
    TrustScreen {
        align: center middle;
        background: $background 60%;
    }
    TrustScreen OptionList {
        height: auto;
        border: none;
        background: $surface;
    }
    """
        + PANEL_CSS
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Close", show=False)]

    def __init__(self, trust: TrustDecision, offer: ProjectOffer, *, first_run: bool, can_forget: bool = False) -> None:
        super().__init__()
        self.typed_ahead = ""
        self.trust = trust
        self.offer = offer
        self.first_run = first_run
        self.can_forget = can_forget

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel") as panel:
            panel.border_title = "Trust this folder?" if self.first_run else "Project trust"
            head = (
                f"{tilde(self.trust.cwd)} brings files Atomic would load and run:"
                if self.first_run
                else f"{self.trust.describe()}\n\nWhat this folder brings:"
            )
            yield Static(head, classes="panel-info", id="trust-head")
            yield Static("\n".join(offer_lines(self.offer, self.trust.cwd)), classes="panel-detail", id="trust-offer")
            yield Static(
                "Extensions run as Python inside Atomic and MCP servers run as you: trust only folders whose "
                "contents you have checked. Trust is not a sandbox.",
                classes="panel-info",
            )
            options = [
                Option("Trust this folder (saved)", id="trust"),
                Option("Trust once (this run only)", id="once"),
                Option("Don't trust (saved)", id="deny"),
            ]
            if self.can_forget:
                options.append(Option("Forget the saved decision", id="forget"))
            yield OptionList(*options, id="trust-choices")
            yield Static("↑↓ move · enter choose · esc close", classes="panel-hint")

    def on_key(self, event: events.Key) -> None:
        # The first-run dialog opens while the user may already be typing: letters are kept for the
        # editor (the trust flow puts them there once it closes); Enter still picks the highlighted choice.
        if event.is_printable and event.character:
            self.typed_ahead += event.character
            event.stop()
            event.prevent_default()

    def on_mount(self) -> None:
        choices = self.query_one("#trust-choices", OptionList)
        choices.highlighted = 0
        choices.focus()

    @on(OptionList.OptionSelected, "#trust-choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        wanted = event.option.id
        for choice in ("trust", "once", "deny", "forget"):
            if wanted == choice:
                self.dismiss(choice)
                return

    def action_cancel(self) -> None:
        self.dismiss(None)
