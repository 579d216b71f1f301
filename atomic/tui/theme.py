"""Atomic's dark and light themes (settings `theme`). Widgets use only theme variables."""

from __future__ import annotations

from collections.abc import Iterable

from textual.theme import Theme

DARK = Theme(
    name="atomic-dark",
    primary="#5fafff",
    secondary="#87afaf",
    accent="#d7af5f",
    warning="#ffaf00",
    error="#ff5f5f",
    success="#5fd787",
    foreground="#d0d0d0",
    background="#121212",
    surface="#1c1c1c",
    panel="#262626",
    dark=True,
    variables={
        "thinking-off": "#585858",
        "thinking-minimal": "#5f87af",
        "thinking-low": "#5fafaf",
        "thinking-medium": "#5fafff",
        "thinking-high": "#af87ff",
        "thinking-xhigh": "#ff87d7",
        "thinking-max": "#ff5faf",
        "bash-mode": "#5fd787",
        "diff-added": "#5fd787",
        "diff-removed": "#ff5f5f",
        "user-message-background": "#262626",
    },
)

LIGHT = Theme(
    name="atomic-light",
    primary="#005faf",
    secondary="#5f8787",
    accent="#af5f00",
    warning="#af5f00",
    error="#d70000",
    success="#008700",
    foreground="#1c1c1c",
    background="#ffffff",
    surface="#f5f5f5",
    panel="#e4e4e4",
    dark=False,
    variables={
        "thinking-off": "#a8a8a8",
        "thinking-minimal": "#5f87af",
        "thinking-low": "#008787",
        "thinking-medium": "#005faf",
        "thinking-high": "#8700af",
        "thinking-xhigh": "#af0087",
        "thinking-max": "#d7005f",
        "bash-mode": "#008700",
        "diff-added": "#008700",
        "diff-removed": "#d70000",
        "user-message-background": "#eeeeee",
    },
)

THEMES = {"dark": DARK, "light": LIGHT}


def theme_name_for(setting: str | None, available: Iterable[str] = ()) -> str:
    """Map the `theme` setting to a registered theme name: `dark`/`light` are Atomic's, any other name a
    theme picked in the F1 palette (Textual's own); unknown names fall back to dark."""
    if setting in THEMES:
        return THEMES[setting].name
    if setting in (DARK.name, LIGHT.name) or (setting is not None and setting in set(available)):
        return setting
    return DARK.name


def setting_for_theme(name: str) -> str:
    """What the `theme` setting saves for a theme picked in the app (the inverse of `theme_name_for`)."""
    for setting, theme in THEMES.items():
        if theme.name == name:
            return setting
    return name
