"""Thinking levels -> Gemini's thinkingConfig, as pi maps them (Gemini 3 `thinkingLevel`, 2.5 `thinkingBudget`)."""

from __future__ import annotations

import pytest

from atomic.core.model_types import Model
from atomic.core.providers.thinking_params import google_params


def gemini(model_id: str, **fields: object) -> Model:
    return Model(id=model_id, api="google-generative-ai", provider="google", reasoning=True, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(("model_id", "level", "expected"), [
    ("gemini-3-pro-preview", "minimal", "LOW"),
    ("gemini-3-pro-preview", "medium", "HIGH"),
    ("gemini-3-pro-preview", "off", "LOW"),
    ("gemini-3.1-pro-preview", "medium", "MEDIUM"),
    ("gemini-3-flash-preview", "minimal", "MINIMAL"),
    ("gemini-3-flash-preview", "low", "LOW"),
    ("gemini-3-flash-preview", "xhigh", "HIGH"),
    ("gemma-4-27b-it", "low", "MINIMAL"),
])
def test_gemini_3_takes_a_thinking_level(model_id: str, level: str, expected: str) -> None:
    config = google_params(gemini(model_id), level)["thinkingConfig"]
    assert config["thinkingLevel"] == expected
    assert config.get("includeThoughts") is (True if level != "off" else None)


@pytest.mark.parametrize(("model_id", "level", "budget"), [
    ("gemini-2.5-pro", "minimal", 128),
    ("gemini-2.5-pro", "high", 32768),
    ("gemini-2.5-pro", "off", 128),
    ("gemini-2.5-flash", "high", 24576),
    ("gemini-2.5-flash", "off", 0),
    ("gemini-2.5-flash-lite", "minimal", 512),
    ("gemini-2.0-flash-thinking", "medium", -1),
])
def test_gemini_2_5_takes_a_budget(model_id: str, level: str, budget: int) -> None:
    assert google_params(gemini(model_id), level)["thinkingConfig"]["thinkingBudget"] == budget


def test_overrides_and_models_that_do_not_reason() -> None:
    assert google_params(gemini("gemini-2.5-flash", thinking_level_map={"high": "999"}), "high")["thinkingConfig"] == {
        "includeThoughts": True, "thinkingBudget": 999}
    assert google_params(gemini("gemini-3-pro-preview", thinking_level_map={"low": "HIGH"}), "low")["thinkingConfig"][
        "thinkingLevel"] == "HIGH"
    assert google_params(gemini("gemini-2.5-flash"), "low", {"low": 4000})["thinkingConfig"]["thinkingBudget"] == 4000
    assert google_params(Model(id="gemini-2.0-flash", reasoning=False), "high") == {}
