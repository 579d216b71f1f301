"""The session's sandbox: the mode in force (the `--sandbox` flag or the settings), the OS support,
and the one notice when that support is missing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from atomic.core.sandbox.command import CommandSandbox
from atomic.core.sandbox.policy import Escalation, SandboxPolicy, policy_from_settings
from atomic.core.sandbox.probe import Support, shared_probe
from atomic.core.settings import SandboxMode, SandboxSettings


@dataclass(frozen=True)
class SandboxStatus:
    """What get_state, the footer and /settings show."""

    mode: SandboxMode
    network: bool
    available: bool
    escalation: Escalation = "ask"
    unavailable_reason: str = ""


class SandboxControl:
    def __init__(
        self,
        settings: Callable[[], SandboxSettings],
        cwd: Path,
        *,
        mode: SandboxMode | None = None,
        support: Callable[[], Support] | None = None,
    ) -> None:
        self._settings = settings
        self._cwd = cwd
        self.mode_override = mode
        self._support = support or (lambda: shared_probe().result())
        self._notice_given = False

    def policy(self) -> SandboxPolicy:
        return policy_from_settings(self._settings(), self._cwd, mode=self.mode_override)

    def support(self) -> Support:
        return self._support()

    def for_tools(self, planning: bool = False) -> CommandSandbox:
        """The sandbox of the model's commands; while planning (plan mode) it is read-only whatever
        the settings say, so a command the read-only list let through still cannot write."""
        if planning:
            return CommandSandbox(policy_from_settings(self._settings(), self._cwd, mode="read-only"), self._support)
        return CommandSandbox(self.policy(), self._support)

    def status(self) -> SandboxStatus:
        settings = self._settings()
        support = self._support()
        return SandboxStatus(
            mode=self.mode_override or settings.mode,
            network=settings.network,
            available=support.available,
            escalation=settings.escalation,
            unavailable_reason=support.reason,
        )

    def set_mode(self, mode: SandboxMode) -> None:
        """A mode chosen in this run (`/settings`) replaces the `--sandbox` flag's."""
        self.mode_override = mode

    def unavailable_notice(self) -> str | None:
        """Once per session, when the sandbox is on but the OS cannot give it: what the user must know."""
        if self._notice_given or not self.policy().active:
            return None
        support = self._support()
        if support.available:
            return None
        self._notice_given = True
        return (
            f"The sandbox is not available here ({support.reason}): the model's commands run without it. "
            "The write and edit tools still keep to the sandbox's writable folders (docs/security.md)."
        )
