"""Withdrawing trust in a running TUI session: what stops at once, and the extensions that cannot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.trust import TrustDecision, TrustStore, trust_change_message
from atomic.tui.screens.trust_screen import TrustScreen
from tests.tui.helpers import behind, make_app, type_text, wait_for


def test_the_message_names_extensions_that_keep_running_until_restart(tmp_path: Path) -> None:
    denied = TrustDecision(tmp_path, False, "saved", decided_by=tmp_path)
    text = trust_change_message(denied, was_trusted=True, loaded_project_extensions=["hello.py"])
    assert "not trusted" in text
    assert "hello.py" in text and "keep running" in text and "restart Atomic" in text
    # Nothing to warn about: trust granted, or withdrawn before any project extension was loaded.
    granted = TrustDecision(tmp_path, True, "saved", decided_by=tmp_path)
    assert "restart" not in trust_change_message(granted, was_trusted=False, loaded_project_extensions=["hello.py"])
    assert "restart" not in trust_change_message(denied, was_trusted=True, loaded_project_extensions=[])


async def test_slash_trust_deny_warns_that_loaded_extensions_stay(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "repo"
    ext = cwd / ".atomic" / "extensions"
    ext.mkdir(parents=True)
    (ext / "hello.py").write_text("def activate(atomic):\n    atomic.register_command('hello', lambda a, c: None)\n")
    (cwd / "AGENTS.md").write_text("project rules")
    TrustStore(agent_dir).save(cwd, True)
    app = make_app(cwd)
    shown: list[tuple[str, str]] = []
    notify = app.notify

    def record(message: str, **kwargs: Any) -> None:
        shown.append((message, str(kwargs.get("severity", "information"))))
        notify(message, **kwargs)

    app.notify = record  # type: ignore[method-assign]
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(lambda: app.session_ready and "hello" in behind(app).extensions.registered_commands, pilot)
        assert "project rules" in behind(app).toolset.system_prompt
        await type_text(pilot, "/trust")
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, TrustScreen), pilot)
        await pilot.press("down", "down", "enter")  # don't trust
        await wait_for(lambda: not app.engine.trust.decision.trusted, pilot)
        await wait_for(lambda: any("Project trust" in m for m, _ in shown), pilot)
        # The context file is gone at once; the imported extension is not, and the user is told.
        assert "project rules" not in behind(app).toolset.system_prompt
        assert "hello" in behind(app).extensions.registered_commands
        message, severity = next((m, s) for m, s in shown if "Project trust" in m)
        assert "hello.py" in message and "restart Atomic" in message and severity == "warning"
    assert TrustStore(agent_dir).lookup(cwd) == (cwd.resolve(), False)
