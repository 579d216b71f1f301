"""Which thinking levels a model supports, clamping a wish to one it does, and cycling.

A model's `thinkingLevelMap` maps a level to the value sent to the provider; `null` marks a
level the model does not support. `xhigh` and `max` are opt-in: they exist only where the map
gives them a value. Non-reasoning models support just "off".
"""

from __future__ import annotations

from atomic.core.model_types import Model
from atomic.core.providers.base import THINKING_LEVELS

OPT_IN_LEVELS = frozenset({"xhigh", "max"})


def supported_levels(model: Model) -> list[str]:
    if not model.reasoning:
        return ["off"]
    level_map = model.thinking_level_map or {}
    levels = []
    for level in THINKING_LEVELS:
        if level in OPT_IN_LEVELS:
            if level_map.get(level) is not None:
                levels.append(level)
        elif not (level in level_map and level_map[level] is None):
            levels.append(level)
    # A map that disables everything would leave nothing to choose; "off" is the honest answer.
    return levels or ["off"]


def clamp_level(model: Model, level: str) -> str:
    """The requested level if supported, else the nearest higher one, else the nearest lower."""
    if level not in THINKING_LEVELS:
        raise ValueError(f'Unknown thinking level "{level}". Use one of: {", ".join(THINKING_LEVELS)}.')
    supported = supported_levels(model)
    if level in supported:
        return level
    position = THINKING_LEVELS.index(level)
    for candidate in THINKING_LEVELS[position + 1 :]:
        if candidate in supported:
            return candidate
    for candidate in reversed(THINKING_LEVELS[:position]):
        if candidate in supported:
            return candidate
    return supported[0]


def next_level(model: Model, current: str) -> str | None:
    """The level after `current` in cycle order (wrapping), or None if the model does not reason."""
    if not model.reasoning:
        return None
    supported = supported_levels(model)
    if current in supported:
        return supported[(supported.index(current) + 1) % len(supported)]
    # An unsupported current level (e.g. left over from another model): step to the first
    # supported level above it, wrapping to the start.
    if current in THINKING_LEVELS:
        position = THINKING_LEVELS.index(current)
        for candidate in supported:
            if THINKING_LEVELS.index(candidate) > position:
                return candidate
    return supported[0]


def provider_value(model: Model, level: str) -> str | None:
    """What to send for a level: the map's value if it has one, else the level name itself."""
    level_map = model.thinking_level_map or {}
    mapped = level_map.get(level)
    return mapped if mapped is not None else level
