from __future__ import annotations

import pytest

from atomic.core.model_types import Model
from atomic.core.models.thinking import clamp_level, next_level, provider_value, supported_levels


def _model(reasoning: bool = True, level_map: dict[str, str | None] | None = None) -> Model:
    return Model(id="m", provider="p", reasoning=reasoning, thinking_level_map=level_map)


def test_non_reasoning_model_only_has_off() -> None:
    model = _model(reasoning=False, level_map={"xhigh": "max"})
    assert supported_levels(model) == ["off"]
    assert clamp_level(model, "high") == "off"
    assert next_level(model, "off") is None


def test_reasoning_without_map_has_the_five_standard_levels() -> None:
    model = _model()
    assert supported_levels(model) == ["off", "minimal", "low", "medium", "high"]
    assert clamp_level(model, "xhigh") == "high"
    assert clamp_level(model, "max") == "high"


def test_xhigh_and_max_only_when_mapped_to_a_value() -> None:
    assert supported_levels(_model(level_map={"xhigh": "xhigh", "max": "max"}))[-2:] == ["xhigh", "max"]
    assert supported_levels(_model(level_map={"max": "max"}))[-2:] == ["high", "max"]
    assert "xhigh" not in supported_levels(_model(level_map={"xhigh": None}))
    assert "max" not in supported_levels(_model(level_map={"max": None, "xhigh": "max"}))


def test_null_entries_remove_levels() -> None:
    model = _model(level_map={"off": None, "minimal": None})
    assert supported_levels(model) == ["low", "medium", "high"]


@pytest.mark.parametrize(
    ("level_map", "requested", "expected"),
    [
        ({"minimal": None}, "minimal", "low"),  # nearest higher
        ({"off": None, "minimal": None}, "off", "low"),
        ({"high": None}, "high", "medium"),  # nothing higher: nearest lower
        ({"max": "max"}, "xhigh", "max"),  # higher wins over lower
        ({"off": None, "minimal": None, "low": None, "medium": None}, "low", "high"),
        ({"xhigh": "xhigh"}, "medium", "medium"),
    ],
)
def test_clamp(level_map: dict[str, str | None], requested: str, expected: str) -> None:
    assert clamp_level(_model(level_map=level_map), requested) == expected


def test_clamp_rejects_unknown_levels() -> None:
    with pytest.raises(ValueError, match="Unknown thinking level"):
        clamp_level(_model(), "ludicrous")


def test_cycle_wraps_through_supported_levels() -> None:
    model = _model(level_map={"minimal": None, "xhigh": "max"})
    seen = ["off"]
    for _ in range(5):
        seen.append(next_level(model, seen[-1]))  # type: ignore[arg-type]
    assert seen == ["off", "low", "medium", "high", "xhigh", "off"]


def test_cycle_from_an_unsupported_level_steps_up() -> None:
    model = _model(level_map={"off": None, "minimal": None})
    assert next_level(model, "off") == "low"
    assert next_level(model, "high") == "low"  # wraps
    assert next_level(_model(), "max") == "off"


def test_provider_value() -> None:
    model = _model(level_map={"xhigh": "max", "minimal": None})
    assert provider_value(model, "xhigh") == "max"
    assert provider_value(model, "medium") == "medium"
