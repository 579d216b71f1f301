"""What /settings shows: each item's settings.json key, how to read it and how to apply it to the engine.

Kept apart from the screen so the list is easy to extend and to test without a terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["bool", "choice", "int", "float", "text"]


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


def _set_auto_compaction(session: Any, enabled: bool) -> None:
    # The engine method may not exist yet in every build; the attribute is what the loop reads.
    setter = getattr(session, "set_auto_compaction", None)
    if callable(setter):
        setter(enabled)
    else:
        session.auto_compaction_enabled = enabled


def _set_auto_retry(session: Any, enabled: bool) -> None:
    setter = getattr(session, "set_auto_retry", None)
    if callable(setter):
        setter(enabled)
    else:
        session.auto_retry_enabled = enabled


def _set_thinking(session: Any, level: str) -> None:
    session.set_thinking_level(level, persist=True)


QUEUE_MODES = ["one-at-a-time", "all"]

SETTING_ITEMS: list[SettingItem] = [
    SettingItem(
        "compaction.enabled",
        "Auto-compact",
        "Compact the context automatically when it nears the model's window",
        "bool",
        lambda s: bool(s.auto_compaction_enabled),
        apply=_set_auto_compaction,
    ),
    SettingItem(
        "retry.enabled",
        "Auto-retry",
        "Retry transient provider errors (overloaded, rate limits) with backoff",
        "bool",
        lambda s: bool(s.auto_retry_enabled),
        apply=_set_auto_retry,
    ),
    SettingItem(
        "steeringMode",
        "Steering mode",
        "Deliver queued steering messages one at a time or all together",
        "choice",
        lambda s: s.steering_mode,
        choices=lambda s: QUEUE_MODES,
        apply=lambda s, v: s.set_steering_mode(v),
    ),
    SettingItem(
        "followUpMode",
        "Follow-up mode",
        "Deliver queued follow-up messages one at a time or all together",
        "choice",
        lambda s: s.follow_up_mode,
        choices=lambda s: QUEUE_MODES,
        apply=lambda s, v: s.set_follow_up_mode(v),
    ),
    SettingItem(
        "defaultThinkingLevel",
        "Thinking level",
        "Reasoning effort for the current model (saved as the default)",
        "choice",
        lambda s: s.thinking_level,
        choices=lambda s: list(s.supported_levels()),
        apply=_set_thinking,
        save=False,
    ),
    SettingItem(
        "theme",
        "Theme",
        "Colour theme of the terminal UI",
        "choice",
        lambda s: s.settings.theme if s.settings.theme in ("dark", "light") else "dark",
        choices=lambda s: ["dark", "light"],
    ),
    SettingItem(
        "hideThinkingBlock",
        "Hide thinking",
        "Hide the model's thinking blocks in the conversation (Ctrl+T toggles)",
        "bool",
        lambda s: bool(s.settings.hide_thinking_block),
    ),
    SettingItem(
        "quietStartup",
        "Quiet startup",
        "Skip the startup header listing context files, templates, skills and extensions",
        "bool",
        lambda s: bool(s.settings.quiet_startup),
    ),
    SettingItem(
        "doubleEscapeAction",
        "Double-escape action",
        "What pressing Esc twice on an empty editor opens",
        "choice",
        lambda s: s.settings.double_escape_action,
        choices=lambda s: ["tree", "fork", "none"],
    ),
    SettingItem(
        "bellOnTurnEnd",
        "Bell on turn end",
        "Ring the terminal bell when a long turn finishes",
        "bool",
        lambda s: bool(s.settings.bell_on_turn_end),
    ),
    SettingItem(
        "animations",
        "Animations",
        "Animated working indicator (off = static text, less CPU)",
        "bool",
        lambda s: bool(s.settings.animations),
    ),
    SettingItem(
        "editorPaddingX",
        "Editor padding",
        "Horizontal padding inside the editor (0-3)",
        "choice",
        lambda s: int(s.settings.editor_padding_x),
        choices=lambda s: [0, 1, 2, 3],
    ),
    SettingItem(
        "images.blockImages",
        "Block images",
        "Never send images to the model",
        "bool",
        lambda s: bool(s.settings.images.block_images),
    ),
    SettingItem(
        "compaction.reserveTokens",
        "Compaction reserve tokens",
        "Tokens kept free for the reply: compaction starts when the context passes window minus this",
        "int",
        lambda s: int(s.settings.compaction.reserve_tokens),
        minimum=0,
        step=1024,
    ),
    SettingItem(
        "compaction.compression_ratio",
        "Compression ratio",
        "Share of the compacted region's lines to keep (0.05-0.95)",
        "float",
        lambda s: float(s.settings.compaction.compression_ratio),
        minimum=0.05,
        maximum=0.95,
        step=0.05,
    ),
    SettingItem(
        "compaction.preserve_recent",
        "Preserve recent messages",
        "Newest messages never compacted",
        "int",
        lambda s: int(s.settings.compaction.preserve_recent),
        minimum=0,
        maximum=1000,
    ),
    SettingItem(
        "retry.maxRetries",
        "Max retries",
        "How many times a transient provider error is retried",
        "int",
        lambda s: int(s.settings.retry.max_retries),
        minimum=0,
        maximum=100,
    ),
    SettingItem(
        "shellPath",
        "Shell path",
        "Shell used by the bash tool and !commands (empty = default)",
        "text",
        lambda s: s.settings.shell_path or "",
    ),
    SettingItem(
        "shellCommandPrefix",
        "Shell command prefix",
        "Text prepended to every shell command, e.g. `source ~/.profile &&` (empty = none)",
        "text",
        lambda s: s.settings.shell_command_prefix or "",
    ),
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
