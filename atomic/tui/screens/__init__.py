"""Modal screens of the terminal UI. Each is a `ModalScreen[T]` that dismisses with a typed result (None
when cancelled): a `ModelChoice`, a `TreeChoice`, an entry id … The caller (atomic.tui.commands) applies
the result through the engine; a screen does not change the session itself.

Names resolve lazily (`from atomic.tui.screens import ModelPickerScreen` loads one module), so
opening the app does not pay for screens nobody opened.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = {
    "ForkPickerScreen": "fork_picker",
    "HotkeysScreen": "hotkeys_screen",
    "LoginScreen": "login_screen",
    "McpScreen": "mcp_screen",
    "RestoreChoiceScreen": "rewind_screen",
    "RewindScreen": "rewind_screen",
    "ModelPickerScreen": "model_picker",
    "SessionPickerScreen": "session_picker",
    "SettingsScreen": "settings_screen",
    "ThinkingPickerScreen": "thinking_picker",
    "TreeScreen": "tree_screen",
    "TrustScreen": "trust_screen",
}

__all__ = [*_MODULES]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)  # foreign: a module's attribute
