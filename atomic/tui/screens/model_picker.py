"""/model: a searchable list of models; Enter returns the chosen one (the caller switches to it and saves it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets.option_list import Option

from atomic.core.model_types import Model
from atomic.tui.formatting import format_tokens
from atomic.tui.screens._picker import PickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter

if TYPE_CHECKING:
    from atomic.core.contract import Engine

_ID_WIDTH_LIMIT = 42
_GROUP_PREFIX = "provider-group:"


def _grouped_by_provider(models: list[Model]) -> list[tuple[str, list[Model]]]:
    """The models in groups by provider, groups in the order of their first (best-ranked) model and
    each group in the order given (the current model first, then by search rank)."""
    groups: dict[str, list[Model]] = {}
    for model in models:
        groups.setdefault(model.provider, []).append(model)
    return list(groups.items())


@dataclass(frozen=True)
class ModelChoice:
    """The model picked in /model."""

    provider: str
    model_id: str


class ModelPickerScreen(PickerScreen[ModelChoice]):
    TITLE_TEXT = "Select model"
    HINT = "↑↓ move · enter select · tab all/available · esc close"
    PLACEHOLDER = "Search provider, id or name"
    EMPTY_TEXT = "No matching models"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("tab", "toggle_scope", "All/available", show=False, priority=True)]

    def __init__(self, engine: Engine, initial_query: str = "", show_all: bool = False) -> None:
        super().__init__(initial_query)
        self.engine = engine
        self.show_all = show_all
        self._models: dict[str, Model] = {}
        self._available: set[str] = set()
        self._order_cache: dict[bool, list[Model]] = {}

    # ------------------------------------------------------------------ data

    def _current_key(self) -> str | None:
        model = self.engine.models.model
        return model.key if model is not None else None

    def _ordered_models(self) -> list[Model]:
        """The current model first, then by provider (catalog order within a provider)."""
        available = list(self.engine.models.available_models())
        self._available = {m.key for m in available}
        models = list(self.engine.models.all_models()) if self.show_all else available
        seen: set[str] = set()
        unique = []
        for model in models:
            if model.key not in seen:
                seen.add(model.key)
                unique.append(model)
        current = self._current_key()
        provider_rank = {p.provider: i for i, p in enumerate(self.engine.models.providers())}
        unique.sort(
            key=lambda m: (
                m.key != current,
                m.key not in self._available,
                provider_rank.get(m.provider, len(provider_rank)),
                m.provider,
            )
        )
        return unique

    def build_options(self, query: str) -> list[Option]:
        # Key checks touch the environment and auth.json: once per scope, not per keystroke.
        ordered = self._order_cache.get(self.show_all)
        if ordered is None:
            ordered = self._order_cache[self.show_all] = self._ordered_models()
        self._models = {m.key: m for m in ordered}
        # The provider goes first in the search text so "openai/..." ranks real provider ids first.
        items = [(f"{m.provider} {m.provider}/{m.id} {m.id} {m.name}", m) for m in ordered]
        matches: list[Model] = fuzzy_filter(query, items)
        provider_width = max((len(m.provider) for m in matches), default=0) + 2
        id_width = min(max((len(m.id) for m in matches), default=0), _ID_WIDTH_LIMIT)
        groups = _grouped_by_provider(matches)
        if len(groups) == 1:
            return [self._row(m, provider_width, id_width) for m in matches]
        options: list[Option] = []
        for provider, models in groups:
            # A heading per provider; disabled, so the cursor and Enter pass over it.
            count = f"{len(models)} model" + ("s" if len(models) != 1 else "")
            options.append(Option(Content.assemble((provider, "bold"), (f"  {count}", "$foreground-muted")),
                                  id=f"{_GROUP_PREFIX}{provider}", disabled=True))
            options.extend(self._row(m, provider_width, id_width) for m in models)
        return options

    def _row(self, model: Model, provider_width: int, id_width: int) -> Option:
        current = model.key == self._current_key()
        has_key = model.key in self._available
        badge = f"[{model.provider}]".ljust(provider_width)
        model_id = model.id if len(model.id) <= id_width else model.id[: id_width - 1] + "…"
        marks = []
        if model.reasoning:
            marks.append("thinking")
        if model.supports_images():
            marks.append("images")
        parts: list[str | tuple[str, str] | Content] = [
            (badge + " ", "$foreground-muted"),
            (model_id.ljust(id_width), "bold" if current else ""),
            ("  " + format_tokens(model.context_window, whole=True).rjust(5) + " ctx", "$foreground-muted"),
            ("  " + " ".join(marks).ljust(15), "$text-accent"),
        ]
        if current:
            parts.append((" ✓ current", "$text-success"))
        if not has_key:
            parts.append((" no key", "$text-warning"))
        prompt = Content.assemble(*parts)
        if not has_key:
            prompt = prompt.stylize("dim")
        return Option(prompt, id=model.key, disabled=not has_key)

    # ------------------------------------------------------------------ texts

    def info_text(self) -> str | Content:
        configured = {key.split("/", 1)[0] for key in self._available}
        if self.show_all:
            return "Showing all models; the dimmed ones need a key (/login or an environment variable)."
        if len(configured) <= 1:
            return "Only showing models from configured providers. Use /login to add providers, tab shows all."
        return ""

    def detail_text(self, option_id: str | None) -> str | Content:
        model = self._models.get(option_id or "")
        if model is None:
            return ""
        details = f"{model.name or model.id} · {model.provider}/{model.id} · context {model.context_window:,}"
        details += f" · max output {model.max_tokens:,}"
        if model.cost.input or model.cost.output:
            details += f" · ${model.cost.input:g}/${model.cost.output:g} per M in/out"
        return details

    def preferred_option_id(self) -> str | None:
        return self._current_key()

    # ------------------------------------------------------------------ actions

    def action_toggle_scope(self) -> None:
        highlighted = self.option_list.highlighted_option
        self.show_all = not self.show_all
        self.refresh_options(keep_id=highlighted.id if highlighted else None)

    async def choose(self, option_id: str) -> None:
        model = self._models[option_id]
        self.dismiss(ModelChoice(model.provider, model.id))
