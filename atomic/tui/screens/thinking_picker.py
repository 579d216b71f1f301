"""/thinking: the current model's supported thinking levels with what each one means; returns the level."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets.option_list import Option

from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import Engine

LEVEL_DESCRIPTIONS: dict[str, str] = {
    "off": "No reasoning",
    "minimal": "Very brief reasoning (~1k tokens)",
    "low": "Light reasoning (~2k tokens)",
    "medium": "Moderate reasoning (~8k tokens)",
    "high": "Deep reasoning (~16k tokens)",
    "xhigh": "Extra-high reasoning (~32k tokens)",
    "max": "Maximum reasoning",
}


class ThinkingPickerScreen(PickerScreen[str]):
    TITLE_TEXT = "Thinking level"
    PLACEHOLDER = "Filter levels"
    EMPTY_TEXT = "No matching level"

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine

    def info_text(self) -> str | Content:
        model = self.engine.models.model
        if model is None:
            return "No model selected."
        if not model.reasoning:
            return f"{model.provider}/{model.id} does not support thinking."
        return Content.assemble("Model: ", (f"{model.provider}/{model.id}", "$text-accent"))

    def build_options(self, query: str) -> list[Option]:
        levels = list(self.engine.models.supported_levels())
        items = [(f"{level} {LEVEL_DESCRIPTIONS.get(level, '')}", level) for level in levels]
        matches: list[str] = fuzzy_filter(query, items)
        current = self.engine.models.thinking_level
        options = []
        for level in matches:
            parts: list[str | tuple[str, str]] = [
                (level.ljust(9), "bold" if level == current else ""),
                (LEVEL_DESCRIPTIONS.get(level, ""), "$foreground-muted"),
            ]
            if level == current:
                parts.append(("  ✓ current", "$text-success"))
            options.append(Option(Content.assemble(*parts), id=level))
        return options

    def preferred_option_id(self) -> str | None:
        return self.engine.models.thinking_level

    async def choose(self, option_id: str) -> None:
        self.dismiss(option_id)
