"""Turning what the user typed (`--model`, `--models`, `enabledModels`) into models.

Accepted patterns: an exact id, `provider/id`, a case-insensitive substring of the id or name,
a glob such as `*sonnet*` or `anthropic/*`, each optionally followed by `:<level>` (for example
`sonnet:high`). When several models match, the best is chosen: one the user has a key for, an
alias over a dated snapshot, a first-party provider over an aggregator, then the newest id.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from atomic.core.model_types import Model
from atomic.core.models.catalog import builtin_model_provenance
from atomic.core.models.registry import ModelRegistry
from atomic.core.providers.base import THINKING_LEVELS

_DATED_ID = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")
_GLOB_CHARS = frozenset("*?[")
_SMALL_VARIANTS = ("mini", "nano", "lite", "fast", "flash", "haiku")


class ModelResolutionError(Exception):
    """A pattern that names no model, or an unknown provider. The message is for the user."""


@dataclass(frozen=True)
class ResolvedModel:
    model: Model
    # The `:level` suffix, if the pattern had one.
    thinking_level: str | None = None


def unknown_provider_message(provider: str) -> str:
    return f'Unknown provider "{provider}". Use --list-models to see available providers and models.'


def resolve_model(registry: ModelRegistry, pattern: str, *, provider: str | None = None) -> ResolvedModel:
    """Resolve one `--model` pattern, optionally narrowed by `--provider`."""
    text = pattern.strip()
    if not text:
        raise ModelResolutionError("Empty model pattern. Use --list-models to see available models.")
    narrowed: str | None = None
    if provider:
        narrowed = registry.canonical_provider(provider)
        if narrowed is None:
            raise ModelResolutionError(unknown_provider_message(provider))
    # Narrowed to one provider, only its models are built: the catalog holds hundreds.
    candidates = registry.provider_models(narrowed) if narrowed else registry.all_models()
    ranker = _Ranker.for_registry(registry, narrowed)

    found = _match_one(registry, candidates, text, ranker)
    level: str | None = None
    if found is None:
        base, suffix = _split_level(text)
        if suffix is not None:
            found = _match_one(registry, candidates, base, ranker)
            level = suffix
    if found is None:
        where = f' for provider "{narrowed}"' if narrowed else ""
        raise ModelResolutionError(
            f'Model "{text}" not found{where}. Use --list-models to see available models.'
        )
    return ResolvedModel(found, level)


def resolve_scoped_models(
    registry: ModelRegistry,
    patterns: Sequence[str],
    *,
    warnings: list[str] | None = None,
) -> list[tuple[Model, str | None]]:
    """Models for `--models a,b` / `enabledModels`, among those with a key, without duplicates.

    A glob adds every match; any other pattern adds its best match. Patterns that match nothing
    are reported through `warnings` (when given) and skipped.
    """
    available = registry.available_models()
    ranker = _Ranker.for_registry(registry)
    result: list[tuple[Model, str | None]] = []
    seen: set[str] = set()
    for raw in patterns:
        text = raw.strip()
        if not text:
            continue
        matches = _scoped_matches(registry, available, text, ranker)
        level: str | None = None
        if not matches:
            base, suffix = _split_level(text)
            if suffix is not None:
                matches = _scoped_matches(registry, available, base, ranker)
                level = suffix
        if not matches and warnings is not None:
            warnings.append(f'No available model matches "{text}".')
        for model in matches:
            if model.key not in seen:
                seen.add(model.key)
                result.append((model, level))
    return result


def _scoped_matches(
    registry: ModelRegistry, available: list[Model], text: str, ranker: _Ranker
) -> list[Model]:
    if _is_glob(text):
        return _glob(available, text)
    best = _match_one(registry, available, text, ranker)
    return [best] if best else []


def choose_initial_model(
    registry: ModelRegistry,
    *,
    cli_provider: str | None = None,
    cli_model: str | None = None,
    default_provider: str | None = None,
    default_model: str | None = None,
    scoped: Sequence[tuple[Model, str | None]] | Sequence[Model] | None = None,
) -> Model | None:
    """CLI choice > first scoped model > settings default (if usable) > a provider's preferred
    default among usable providers > the first usable model > None."""
    if cli_model:
        return resolve_model(registry, cli_model, provider=cli_provider).model
    if cli_provider:
        name = registry.canonical_provider(cli_provider)
        if name is None:
            raise ModelResolutionError(unknown_provider_message(cli_provider))
        own = registry.provider_models(name)
        preferred = registry.default_model_id(name)
        for model in own:
            if model.id == preferred:
                return model
        if own:
            return own[0]
        raise ModelResolutionError(f'Provider "{name}" has no models. Add some in models.json.')
    if scoped:
        first = scoped[0]
        return first[0] if isinstance(first, tuple) else first

    available = registry.available_models()
    if default_provider and default_model:
        for model in available:
            if model.provider == default_provider and model.id == default_model:
                return model
    for provider in registry.providers():
        preferred = registry.default_model_id(provider)
        for model in available:
            if model.provider == provider and model.id == preferred:
                return model
    return available[0] if available else None


# ---------------------------------------------------------------------------- matching


def _split_level(text: str) -> tuple[str, str | None]:
    if ":" not in text:
        return text, None
    base, suffix = text.rsplit(":", 1)
    if base and suffix.lower() in THINKING_LEVELS:
        return base, suffix.lower()
    return text, None


def _is_glob(text: str) -> bool:
    return any(ch in _GLOB_CHARS for ch in text)


def _glob(models: list[Model], pattern: str) -> list[Model]:
    lowered = pattern.lower()
    return [
        m
        for m in models
        if fnmatch.fnmatchcase(m.id.lower(), lowered) or fnmatch.fnmatchcase(m.key.lower(), lowered)
    ]


@dataclass(frozen=True)
class _Ranker:
    """Picks the best of several matches; built once per resolution (it asks for credentials)."""

    available: frozenset[str]
    provider_order: dict[str, int]
    pattern: str = ""

    @classmethod
    def for_registry(cls, registry: ModelRegistry, provider: str | None = None) -> _Ranker:
        if provider is None:
            available = frozenset(m.key for m in registry.available_models())
        elif registry.is_configured(provider):
            available = frozenset(m.key for m in registry.provider_models(provider))
        else:
            available = frozenset()
        return cls(
            available=available,
            provider_order={name: i for i, name in enumerate(registry.providers())},
        )

    def for_pattern(self, pattern: str) -> _Ranker:
        return replace(self, pattern=pattern.lower())

    def _is_small_variant(self, model: Model) -> bool:
        # "4o" should mean gpt-4o, not gpt-4o-mini: prefer the full-size model unless the
        # pattern itself asks for the variant.
        words = set(re.split(r"[-_.:/ ]", model.id.lower()))
        return any(v in words and v not in self.pattern for v in _SMALL_VARIANTS)

    def best(self, models: list[Model]) -> Model | None:
        if not models:
            return None
        # Newest id first (natural order: 120b after 20b, 5.4 after 5), then a stable sort by
        # the stronger preferences.
        ordered = sorted(models, key=lambda m: _natural_key(m.id), reverse=True)
        ordered.sort(
            key=lambda m: (
                m.key not in self.available,
                bool(_DATED_ID.search(m.id)),
                self.provider_order.get(m.provider, len(self.provider_order)),
                self._is_small_variant(m),
            )
        )
        return ordered[0]


def _natural_key(text: str) -> list[tuple[int, int | str]]:
    return [
        (1, int(part)) if part.isdigit() else (0, part) for part in re.split(r"(\d+)", text.lower()) if part
    ]


def _match_one(registry: ModelRegistry, models: list[Model], text: str, ranker: _Ranker) -> Model | None:
    lowered = text.lower()
    ranker = ranker.for_pattern(text)
    # "openai/gpt-5" means provider openai, model gpt-5, before openrouter's "openai/gpt-5" id.
    by_key = [m for m in models if m.key.lower() == lowered]
    if by_key:
        return by_key[0]
    exact = [m for m in models if m.id == text] or [m for m in models if m.id.lower() == lowered]
    if exact:
        return ranker.best(exact)
    if "/" in text:
        head, rest = text.split("/", 1)
        provider = registry.canonical_provider(head)
        if provider is not None and rest:
            own = [m for m in models if m.provider == provider]
            found = _match_one(registry, own, rest, ranker)
            if found is not None:
                return found
    if _is_glob(text):
        return ranker.best(_glob(models, text))
    fuzzy = [
        m for m in models if lowered in m.id.lower() or lowered in m.name.lower() or lowered in m.key.lower()
    ]
    return ranker.best(fuzzy)


# ---------------------------------------------------------------------------- display


def format_token_count(count: int) -> str:
    if count >= 1_000_000:
        value, unit = count / 1_000_000, "M"
    elif count >= 1_000:
        value, unit = count / 1_000, "K"
    else:
        return str(count)
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text}{unit}"


def format_price(model: Model) -> str:
    """Input/output dollars per million tokens, e.g. "3/15"; "-" for a model with no price (local)."""
    if not model.cost.input and not model.cost.output:
        return "-"
    return f"{model.cost.input:g}/{model.cost.output:g}"


def format_models_table(models: Sequence[Model], search: str | None = None) -> str:
    """The `--list-models [search]` table: provider, model, context, max out, price, thinking, images."""
    shown = list(models)
    if search and search.strip():
        terms = search.lower().split()
        shown = [m for m in shown if all(t in f"{m.provider} {m.key} {m.name}".lower() for t in terms)]
    if not shown:
        return (
            f'No models matching "{search.strip()}".' if search and search.strip() else "No models available."
        )
    shown.sort(key=lambda m: (m.provider, m.id))
    header: tuple[str, ...] = ("provider", "model", "context", "max-out", "$/MTok in/out", "thinking", "images")
    rows: list[tuple[str, ...]] = [
        (
            m.provider,
            m.id,
            format_token_count(m.context_window),
            format_token_count(m.max_tokens),
            format_price(m),
            "yes" if m.reasoning else "no",
            "yes" if m.supports_images() else "no",
        )
        for m in shown
    ]
    # A model its provider deprecated or retired says so, so nobody picks it by accident; the
    # column only appears when a listed model has a status.
    statuses = [_catalog_status(m) for m in shown]
    if any(statuses):
        header = (*header, "status")
        rows = [(*row, status) for row, status in zip(rows, statuses, strict=True)]
    # Figures read best right-aligned; names, yes/no and status left-aligned.
    numeric = {2, 3, 4}
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(
            cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i]) for i, cell in enumerate(row)
        ).rstrip()
        for row in [header, *rows]
    ]
    return "\n".join(lines)


def _catalog_status(model: Model) -> str:
    provenance = builtin_model_provenance(model.provider, model.id)
    return provenance.status or "" if provenance is not None else ""
