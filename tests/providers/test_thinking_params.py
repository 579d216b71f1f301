"""Thinking level -> request parameters, per API (pure functions)."""

from __future__ import annotations

from typing import Any

import pytest

from atomic.core.model_types import Model
from atomic.core.providers.thinking_params import (
    anthropic_params,
    completions_params,
    default_max_tokens,
    is_adaptive_anthropic_model,
    responses_params,
)


def model(**fields: Any) -> Model:
    data: dict[str, Any] = {"id": "claude-sonnet-4-5", "reasoning": True, "max_tokens": 64000}
    data.update(fields)
    return Model(**data)


@pytest.mark.parametrize(
    ("model_id", "adaptive"),
    [
        ("claude-opus-4-6", True),
        ("claude-opus-4.6", True),
        ("claude-sonnet-4-6", True),
        ("anthropic/claude-sonnet-4.6", True),
        ("claude-opus-4-7-20260301", True),
        ("claude-opus-5", True),
        ("claude-sonnet-5-1", True),
        ("claude-sonnet-4-5-20250929", False),
        ("claude-opus-4-20250514", False),
        ("claude-opus-4-1", False),
        ("claude-3-5-sonnet-20241022", False),
        ("claude-haiku-4-5", False),
    ],
)
def test_adaptive_model_detection(model_id: str, adaptive: bool) -> None:
    assert is_adaptive_anthropic_model(model_id) is adaptive


def test_default_max_tokens() -> None:
    assert default_max_tokens(model(max_tokens=64000), None) == 32000
    assert default_max_tokens(model(max_tokens=8192), None) == 8192
    assert default_max_tokens(model(max_tokens=64000), 1000) == 1000
    assert default_max_tokens(model(max_tokens=4096), 10000) == 4096


@pytest.mark.parametrize(
    ("level", "budget", "max_tokens"),
    [
        ("minimal", 1024, 33024),
        ("low", 2048, 34048),
        ("medium", 8192, 40192),
        ("high", 16384, 48384),
        ("xhigh", 24576, 56576),
        ("max", 32000, 64000),
    ],
)
def test_anthropic_budget_levels(level: str, budget: int, max_tokens: int) -> None:
    assert anthropic_params(model(), level) == {
        "max_tokens": max_tokens,
        "thinking": {"type": "enabled", "budget_tokens": budget},
    }


def test_anthropic_budget_capped_by_model_max_tokens_keeps_output_room() -> None:
    # base 16000 + 16384 > 20000: max_tokens is the model ceiling, budget shrinks to leave 1024.
    params = anthropic_params(model(max_tokens=20000), "high", max_tokens=16000)
    assert params == {"max_tokens": 20000, "thinking": {"type": "enabled", "budget_tokens": 16384}}
    params = anthropic_params(model(max_tokens=16000), "high")
    assert params == {"max_tokens": 16000, "thinking": {"type": "enabled", "budget_tokens": 14976}}


def test_anthropic_budget_too_small_disables_thinking() -> None:
    params = anthropic_params(model(max_tokens=1500), "low")
    assert params == {"max_tokens": 1500, "thinking": {"type": "disabled"}}


def test_anthropic_budget_overrides() -> None:
    assert anthropic_params(model(), "medium", thinking_budgets={"medium": 5000})["thinking"] == {
        "type": "enabled",
        "budget_tokens": 5000,
    }
    mapped = model(thinking_level_map={"high": "12000"})
    assert anthropic_params(mapped, "high")["thinking"]["budget_tokens"] == 12000


def test_anthropic_off_and_non_reasoning() -> None:
    assert anthropic_params(model(), "off") == {"max_tokens": 32000, "thinking": {"type": "disabled"}}
    assert anthropic_params(model(reasoning=False), "high") == {"max_tokens": 32000}


@pytest.mark.parametrize(
    ("level", "effort"),
    [
        ("minimal", "low"),
        ("low", "low"),
        ("medium", "medium"),
        ("high", "high"),
        ("xhigh", "high"),
        ("max", "max"),
    ],
)
def test_anthropic_adaptive_effort(level: str, effort: str) -> None:
    assert anthropic_params(model(id="claude-opus-4-6"), level) == {
        "max_tokens": 32000,
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": effort},
    }


def test_anthropic_adaptive_effort_map_override() -> None:
    params = anthropic_params(model(id="claude-opus-4-7", thinking_level_map={"xhigh": "xhigh"}), "xhigh")
    assert params["output_config"] == {"effort": "xhigh"}


@pytest.mark.parametrize(
    ("compat", "level", "expected"),
    [
        ({}, "minimal", {"reasoning_effort": "minimal"}),
        ({}, "max", {"reasoning_effort": "xhigh"}),
        ({}, "off", {}),
        ({"supportsReasoningEffort": False}, "high", {}),
        ({"thinkingFormat": "openrouter"}, "high", {"reasoning": {"effort": "high"}}),
        ({"thinkingFormat": "openrouter"}, "off", {"reasoning": {"effort": "none"}}),
        ({"thinkingFormat": "qwen"}, "low", {"enable_thinking": True}),
        ({"thinkingFormat": "zai"}, "off", {"thinking": {"type": "disabled"}}),
        ({"thinkingFormat": "zai"}, "high", {"thinking": {"type": "enabled", "clear_thinking": False}}),
        (
            {"thinkingFormat": "qwen-chat-template"},
            "low",
            {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}},
        ),
        (
            {"thinkingFormat": "deepseek"},
            "medium",
            {"thinking": {"type": "enabled"}, "reasoning_effort": "medium"},
        ),
        ({"thinkingFormat": "deepseek"}, "off", {"thinking": {"type": "disabled"}}),
    ],
)
def test_completions_params(compat: dict[str, Any], level: str, expected: dict[str, Any]) -> None:
    assert completions_params(model(id="m", compat=compat), level) == expected


def test_completions_params_map_and_non_reasoning() -> None:
    assert completions_params(model(id="m", thinking_level_map={"off": "none"}), "off") == {
        "reasoning_effort": "none"
    }
    assert completions_params(model(id="m", thinking_level_map={"high": "max"}), "high") == {
        "reasoning_effort": "max"
    }
    assert completions_params(model(id="m", reasoning=False), "high") == {}


def test_responses_params() -> None:
    assert responses_params(model(id="gpt-5"), "low") == {
        "reasoning": {"effort": "low", "summary": "auto"},
        "include": ["reasoning.encrypted_content"],
    }
    assert responses_params(model(id="gpt-5"), "off") == {"reasoning": {"effort": "none"}}
    assert responses_params(model(id="gpt-5", thinking_level_map={"off": "minimal"}), "off") == {
        "reasoning": {"effort": "minimal"}
    }
    assert responses_params(model(id="gpt-4.1", reasoning=False), "high") == {}
