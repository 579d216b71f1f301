"""The TUI shows the sandbox: the footer names any state other than the default, and a machine without
OS support gets one warning note at start-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.sandbox import control
from atomic.core.sandbox.probe import Support
from atomic.tui.conversation import NoteMessage
from tests.tui.helpers import make_app, wait_for


class _NoSupport:
    def result(self) -> Support:
        return Support("linux", None, "simulated: no user namespaces")


def _notes(app: Any) -> list[NoteMessage]:
    return list(app.conversation.query(NoteMessage))


async def test_the_footer_says_when_the_sandbox_is_off_or_read_only(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", sandbox_mode="off")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(lambda: "sandbox off" in str(app.footer.render()), pilot)
        app.engine.set_sandbox_mode("read-only")
        app.after_state_change()
        await pilot.pause()
        assert "sandbox read-only" in str(app.footer.render())


async def test_without_os_support_the_user_is_told_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "shared_probe", lambda: _NoSupport())
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(lambda: any("sandbox is not available" in n.text for n in _notes(app)), pilot)
        assert "no sandbox (not supported here)" in str(app.footer.render())
        app.after_state_change()
        await pilot.pause()
        assert sum("sandbox is not available" in n.text for n in _notes(app)) == 1
