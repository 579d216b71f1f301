"""Thinking level -> request parameters, one pure function per API.

Inputs are the session's thinking level (`off` ... `max`), the model (its `reasoning` flag,
`compat` switches and `thinking_level_map`, where a string value overrides what is sent) and
the requested max_tokens. Outputs are plain dicts merged into the request body.
"""

from __future__ import annotations

import re
from typing import Any

from atomic.core.model_types import Model
from atomic.core.models.compat import completions_compat

DEFAULT_MAX_TOKENS_CAP = 32000
MIN_OUTPUT_TOKENS = 1024
MIN_ANTHROPIC_BUDGET = 1024

DEFAULT_THINKING_BUDGETS: dict[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
    "xhigh": 24576,
    "max": 32000,
}

# Anthropic `output_config.effort` for adaptive-thinking models.
_ANTHROPIC_EFFORT = {
    "minimal": "low",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "high",
    "max": "max",
}

# OpenAI has no "max" effort; its strongest is "xhigh".
_OPENAI_EFFORT = {
    "minimal": "minimal",
    "low": "low",
    "medium": "medium",
    "high": "high",
    "xhigh": "xhigh",
    "max": "xhigh",
}

# Claude 4.6 / 4.7 and later think adaptively (`thinking.type = "adaptive"` + effort).
# Major and minor have at most two digits so date suffixes (opus-4-20250514) never count.
_ADAPTIVE_RE = re.compile(r"(?:opus|sonnet|haiku)-(\d{1,2})(?!\d)(?:[-.](\d{1,2})(?!\d))?", re.IGNORECASE)


def default_max_tokens(model: Model, requested: int | None) -> int:
    """The output budget when the caller gave none: min(model.max_tokens, 32000)."""
    if requested is not None and requested > 0:
        return min(requested, model.max_tokens) if model.max_tokens > 0 else requested
    return min(model.max_tokens, DEFAULT_MAX_TOKENS_CAP) if model.max_tokens > 0 else DEFAULT_MAX_TOKENS_CAP


def mapped_value(model: Model, level: str) -> str | None:
    """The model's `thinking_level_map` override for a level (None when not overridden)."""
    mapping = model.thinking_level_map or {}
    value = mapping.get(level)
    return value if isinstance(value, str) else None


def is_adaptive_anthropic_model(model_id: str) -> bool:
    """Claude models from 4.6 on (opus-4-6, sonnet-4.6, opus-4-7, ...) use adaptive thinking."""
    for match in _ADAPTIVE_RE.finditer(model_id):
        major, minor = int(match.group(1)), int(match.group(2) or 0)
        if major > 4 or (major == 4 and minor >= 6):
            return True
    return False


# ----------------------------------------------------------------------------- anthropic


def anthropic_params(
    model: Model,
    level: str,
    max_tokens: int | None = None,
    thinking_budgets: dict[str, int] | None = None,
) -> dict[str, Any]:
    """`max_tokens` plus `thinking` / `output_config` for the Messages API."""
    base = default_max_tokens(model, max_tokens)
    if not model.reasoning:
        return {"max_tokens": base}
    if level == "off":
        return {"max_tokens": base, "thinking": {"type": "disabled"}}

    if is_adaptive_anthropic_model(model.id):
        effort = mapped_value(model, level) or _ANTHROPIC_EFFORT.get(level, "high")
        return {
            "max_tokens": base,
            "thinking": {"type": "adaptive", "display": "summarized"},
            "output_config": {"effort": effort},
        }

    budget = _budget_for(model, level, thinking_budgets)
    limit = model.max_tokens if model.max_tokens > 0 else base + budget
    total = min(base + budget, limit)
    if total - budget < MIN_OUTPUT_TOKENS:
        # The model's ceiling leaves too little room for the answer: shrink the thinking budget.
        budget = total - MIN_OUTPUT_TOKENS
    if budget < MIN_ANTHROPIC_BUDGET:
        # Anthropic rejects budgets below 1024: too small a model ceiling means no thinking.
        return {"max_tokens": total, "thinking": {"type": "disabled"}}
    return {"max_tokens": total, "thinking": {"type": "enabled", "budget_tokens": budget}}


def _budget_for(model: Model, level: str, overrides: dict[str, int] | None) -> int:
    mapped = mapped_value(model, level)
    if mapped is not None and mapped.strip().isdigit():
        return int(mapped)
    if overrides and isinstance(overrides.get(level), int) and overrides[level] > 0:
        return overrides[level]
    return DEFAULT_THINKING_BUDGETS.get(level, DEFAULT_THINKING_BUDGETS["high"])


# ----------------------------------------------------------------------------- openai chat completions


def completions_params(model: Model, level: str) -> dict[str, Any]:
    """Reasoning parameters for chat.completions, shaped by `compat.thinkingFormat`.

    Returns body keys, standard or not (enable_thinking, reasoning, thinking,
    chat_template_kwargs): the caller puts them all in the JSON body.
    """
    if not model.reasoning:
        return {}
    compat = completions_compat(model)
    fmt = compat.get("thinkingFormat", "openai")
    supports_effort = compat.get("supportsReasoningEffort", True)
    on = level != "off"
    effort = _openai_effort(model, level)

    if fmt == "zai":
        # Z.ai: `clear_thinking: false` keeps earlier turns' reasoning_content (sent back with them).
        return {"thinking": {"type": "enabled", "clear_thinking": False} if on else {"type": "disabled"}}
    if fmt == "qwen":
        return {"enable_thinking": on}
    if fmt == "qwen-chat-template":
        return {"chat_template_kwargs": {"enable_thinking": on, "preserve_thinking": True}}
    if fmt == "openrouter":
        return {"reasoning": {"effort": effort if effort is not None else "none"}}
    if fmt == "deepseek":
        params: dict[str, Any] = {"thinking": {"type": "enabled" if on else "disabled"}}
        if on and supports_effort and effort is not None:
            params["reasoning_effort"] = effort
        return params
    # "openai": only an explicit off mapping (e.g. "none") turns reasoning off.
    if supports_effort and effort is not None:
        return {"reasoning_effort": effort}
    return {}


def _openai_effort(model: Model, level: str) -> str | None:
    mapped = mapped_value(model, level)
    if mapped is not None:
        return mapped
    if level == "off":
        return None
    return _OPENAI_EFFORT.get(level, level)


# ----------------------------------------------------------------------------- openai responses


def responses_params(model: Model, level: str) -> dict[str, Any]:
    """`reasoning` (+ `include` for encrypted reasoning replay) for the Responses API."""
    if not model.reasoning:
        return {}
    if level == "off":
        return {"reasoning": {"effort": mapped_value(model, "off") or "none"}}
    effort = _openai_effort(model, level) or "medium"
    return {
        "reasoning": {"effort": effort, "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    }


# ----------------------------------------------------------------------------- google gemini

# Gemini 2.5 thinking budgets per level, by model family (pi's figures); other models think dynamically (-1).
_GEMINI_BUDGETS: tuple[tuple[str, dict[str, int]], ...] = (
    ("2.5-pro", {"minimal": 128, "low": 2048, "medium": 8192, "high": 32768}),
    ("2.5-flash-lite", {"minimal": 512, "low": 2048, "medium": 8192, "high": 24576}),
    ("2.5-flash", {"minimal": 128, "low": 2048, "medium": 8192, "high": 24576}),
)
# Gemini 3 / Gemma 4 `thinkingLevel` per Atomic level, by model family; the first entry is the lowest.
_GEMINI_LEVELS: tuple[tuple[str, dict[str, str]], ...] = (
    ("gemini-3-pro", {"minimal": "LOW", "low": "LOW", "medium": "HIGH", "high": "HIGH"}),
    ("gemini-3.1-pro", {"minimal": "LOW", "low": "LOW", "medium": "MEDIUM", "high": "HIGH"}),
    ("gemma-4", {"minimal": "MINIMAL", "low": "MINIMAL", "medium": "HIGH", "high": "HIGH"}),
    ("", {"minimal": "MINIMAL", "low": "LOW", "medium": "MEDIUM", "high": "HIGH"}),
)


def _gemini_level_key(level: str) -> str:
    return "high" if level in ("xhigh", "max") else level


def uses_thinking_level(model_id: str) -> bool:
    """Gemini 3 and Gemma 4 take `thinkingLevel`; earlier models a token budget."""
    lowered = model_id.lower()
    return "gemini-3" in lowered or "gemma-4" in lowered


def google_params(model: Model, level: str, thinking_budgets: dict[str, int] | None = None) -> dict[str, Any]:
    """`thinkingConfig` for Gemini's generationConfig ({} for a model that does not reason)."""
    if not model.reasoning:
        return {}
    on = level != "off"
    mapped = mapped_value(model, level)
    lowered = model.id.lower()
    config: dict[str, Any] = {"includeThoughts": True} if on else {}
    if uses_thinking_level(model.id):
        levels = next(table for family, table in _GEMINI_LEVELS if family in lowered)
        # Gemini 3 cannot stop thinking: off is its lowest level, without the thoughts shown.
        config["thinkingLevel"] = mapped or levels["minimal" if not on else _gemini_level_key(level)]
        return {"thinkingConfig": config}
    budgets = next((table for family, table in _GEMINI_BUDGETS if family in lowered), None)
    if mapped is not None and mapped.strip().lstrip("-").isdigit():
        config["thinkingBudget"] = int(mapped)
    elif not on:
        # 2.5 Pro cannot turn thinking off; its smallest budget is the nearest to off.
        config["thinkingBudget"] = budgets["minimal"] if budgets and "2.5-pro" in lowered else 0
    elif thinking_budgets and isinstance(thinking_budgets.get(level), int) and thinking_budgets[level] > 0:
        config["thinkingBudget"] = thinking_budgets[level]
    else:
        config["thinkingBudget"] = budgets[_gemini_level_key(level)] if budgets else -1
    return {"thinkingConfig": config}
