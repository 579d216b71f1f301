"""PermissionModes: changing who approves tool calls, and the mode plan mode returns to."""

from __future__ import annotations

from collections.abc import Callable

from atomic.core.events import Event, PermissionModeChanged
from atomic.core.permissions import PermissionPolicy, parse_mode
from atomic.core.settings import SettingsManager


class PermissionModes:
    def __init__(self, policy: PermissionPolicy, settings: SettingsManager, emit: Callable[[Event], None]) -> None:
        self._policy = policy
        self._settings = settings
        self._emit = emit
        # Approving a plan switches back to the mode in effect before planning began.
        self.before_plan = "ask"

    def set_mode(self, mode: str, persist: bool = False) -> None:
        """Change who approves tool calls; "always" answers given so far stay remembered."""
        parsed = parse_mode(mode)
        if parsed == "plan" and self._policy.mode != "plan":
            self.before_plan = self._policy.mode
        self._policy.mode = parsed
        if persist:
            self._settings.update({"permissionMode": mode})
        self._emit(PermissionModeChanged(mode=mode))
