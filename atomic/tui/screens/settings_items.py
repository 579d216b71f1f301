"""What /settings shows, in its order: each setting's label, description, kind and range come from its field in
atomic/core/settings.py (declared once there); this module adds how the screen reads the current value from the
engine and applies a change to it.

Kept apart from the screen so the list is easy to extend and to test without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atomic.core.settings import SettingKind, setting_meta

if TYPE_CHECKING:
    from atomic.core.contract import Engine

Kind = SettingKind


@dataclass(frozen=True)
class SettingItem:
    key: str  # dotted key in settings.json
    label: str
    description: str
    kind: Kind
    read: Callable[[Any], Any]
    choices: Callable[[Any], list[Any]] | None = None
    # Engine-side effect beyond saving (the value is already validated).
    apply: Callable[[Any, Any], None] | None = None
    # False when `apply` persists by itself (the thinking level goes through the engine's own save).
    save: bool = True
    minimum: float | None = None
    maximum: float | None = None
    step: float = 1


def _item(
    key: str,
    read: Callable[[Any], Any],
    *,
    choices: Callable[[Any], list[Any]] | None = None,
    apply: Callable[[Any, Any], None] | None = None,
    save: bool = True,
) -> SettingItem:
    """The item for `key`, its metadata read from the settings model; fixed choices come from there too."""
    meta = setting_meta(key)
    fixed = list(meta.choices)
    return SettingItem(
        key,
        meta.label,
        meta.description,
        meta.kind,
        read,
        choices=choices or ((lambda s: fixed) if fixed else None),
        apply=apply,
        save=save,
        minimum=meta.minimum,
        maximum=meta.maximum,
        step=meta.step,
    )


def _set_thinking(engine: Engine, level: str) -> None:
    engine.models.set_thinking_level(level, persist=True)


SETTING_ITEMS: list[SettingItem] = [
    _item("compaction.enabled", lambda s: bool(s.auto_compaction_enabled), apply=lambda s, v: s.set_auto_compaction(v)),
    _item("retry.enabled", lambda s: bool(s.auto_retry_enabled), apply=lambda s, v: s.set_auto_retry(v)),
    _item("steeringMode", lambda s: s.steering_mode, apply=lambda s, v: s.set_steering_mode(v)),
    _item("followUpMode", lambda s: s.follow_up_mode, apply=lambda s, v: s.set_follow_up_mode(v)),
    _item(
        "defaultThinkingLevel",
        lambda s: s.models.thinking_level,
        choices=lambda s: list(s.models.supported_levels()),
        apply=_set_thinking,
        save=False,
    ),
    _item("theme", lambda s: s.settings.theme if s.settings.theme in ("dark", "light") else "dark"),
    _item("hideThinkingBlock", lambda s: bool(s.settings.hide_thinking_block)),
    _item("quietStartup", lambda s: bool(s.settings.quiet_startup)),
    _item("doubleEscapeAction", lambda s: s.settings.double_escape_action),
    _item("bellOnTurnEnd", lambda s: bool(s.settings.bell_on_turn_end)),
    _item("notifyOnTurnEnd", lambda s: bool(s.settings.notify_on_turn_end)),
    _item("editorPaddingX", lambda s: int(s.settings.editor_padding_x)),
    _item("images.blockImages", lambda s: bool(s.settings.images.block_images)),
    _item("webSearch", lambda s: bool(s.settings.web_search)),
    _item("compaction.reserveTokens", lambda s: int(s.settings.compaction.reserve_tokens)),
    _item("compaction.compression_ratio", lambda s: float(s.settings.compaction.compression_ratio)),
    _item("compaction.preserve_recent", lambda s: int(s.settings.compaction.preserve_recent)),
    _item("retry.maxRetries", lambda s: int(s.settings.retry.max_retries)),
    _item("subagents.maxConcurrent", lambda s: int(s.settings.subagents.max_concurrent)),
    _item("shellPath", lambda s: s.settings.shell_path or ""),
    _item("shellCommandPrefix", lambda s: s.settings.shell_command_prefix or ""),
    _item("sandbox.mode", lambda s: s.sandbox_status().mode, apply=lambda s, v: s.set_sandbox_mode(v)),
    _item("sandbox.network", lambda s: bool(s.settings.sandbox.network)),
]


def format_value(item: SettingItem, value: Any) -> str:
    if item.kind == "bool":
        return "on" if value else "off"
    if item.kind == "float":
        return f"{value:g}"
    if item.kind == "text":
        return value or "(not set)"
    return str(value)


def parse_number(item: SettingItem, text: str) -> int | float:
    """Parse and range-check an edited number; raises ValueError with a message for the user."""
    try:
        value: int | float = int(text.strip()) if item.kind == "int" else float(text.strip())
    except ValueError:
        kind = "a whole number" if item.kind == "int" else "a number"
        raise ValueError(f"{item.label} must be {kind}") from None
    return check_range(item, value)


def check_range(item: SettingItem, value: int | float) -> int | float:
    if item.minimum is not None and value < item.minimum:
        raise ValueError(f"{item.label} must be at least {item.minimum:g}")
    if item.maximum is not None and value > item.maximum:
        raise ValueError(f"{item.label} must be at most {item.maximum:g}")
    return value


def stepped(item: SettingItem, value: Any, direction: int) -> Any:
    """The next value for Left/Right (direction -1/+1): cycle bools and choices, step numbers."""
    if item.kind == "bool":
        return not value
    if item.kind in ("int", "float"):
        new = value + item.step * direction
        if item.kind == "float":
            new = round(new, 4)
        else:
            new = int(new)
        if item.minimum is not None:
            new = max(item.minimum, new)
        if item.maximum is not None:
            new = min(item.maximum, new)
        return type(value)(new)
    return value
