"""Asking about project trust in the TUI and applying the answer to the running session."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.engine.project_trust import apply_project_trust, skipped_offer
from atomic.core.extensions.loader import project_extension_paths
from atomic.core.project_offer import project_offer
from atomic.core.trust import ProjectTrust, TrustStore, resolve_trust, trust_change_message
from atomic.tui.screens.trust_screen import TrustChoice, TrustScreen

if TYPE_CHECKING:
    from atomic.tui.app import AtomicApp


def ask_on_first_run(app: AtomicApp, *, then: Callable[[], Awaitable[None]]) -> bool:
    """Show the dialog when `ask` left the folder undecided and it brings something (True if shown);
    `then` (e.g. the initial message) runs once the answer has been applied."""
    session = app.session
    trust = session.project_trust
    if trust is None or not trust.undecided:
        return False
    offer = skipped_offer(session)
    if offer.empty:
        return False
    app.push_screen(TrustScreen(trust, offer, first_run=True), lambda choice: _answer(app, choice, then))
    return True


def open_trust_screen(app: AtomicApp) -> None:
    """`/trust`: the decision for this folder, what the folder brings, and the choices to change it."""
    session = app.session
    trust = session.project_trust
    if trust is None:
        app.notify("/trust is not available yet", severity="warning")
        return
    store = TrustStore(session.agent_dir)
    saved = store.lookup(session.cwd)
    screen = TrustScreen(
        trust,
        project_offer(session.cwd, session.agent_dir),
        first_run=False,
        can_forget=saved is not None and saved[0] == session.cwd.resolve(),
    )
    app.push_screen(screen, lambda choice: _answer(app, choice))


def _answer(app: AtomicApp, choice: TrustChoice | None, then: Callable[[], Awaitable[None]] | None = None) -> None:
    async def apply_then() -> None:
        if choice is not None:
            await apply_choice(app, choice)
        if then is not None:
            await then()

    app.run_worker(apply_then(), group="trust", exclusive=True)


async def apply_choice(app: AtomicApp, choice: TrustChoice) -> None:
    """Save the choice (except "once") and load or stop using the project's resources."""
    session = app.session
    current: ProjectTrust = session.project_trust
    folder = session.cwd.resolve()
    store = TrustStore(session.agent_dir)
    try:
        if choice in ("trust", "deny"):
            store.save(folder, choice == "trust")
        elif choice == "forget":
            store.forget(folder)
    except (OSError, ValueError) as exc:
        app.notify(f"Could not save the trust decision: {exc}", severity="error")
        return
    if choice == "once":
        new = current.trusted_once()
    elif choice == "forget":
        setting = session.settings_manager.global_raw().get("defaultProjectTrust")
        new = resolve_trust(folder, session.agent_dir, setting=setting if isinstance(setting, str) else None)
    else:
        new = ProjectTrust(folder, choice == "trust", "saved", decided_by=folder)
    was_trusted = current.trusted
    await apply_project_trust(session, app.options, new)
    if session.mcp is not None:
        session.mcp.set_notice_sink(lambda line: app.notify(line, severity="warning", timeout=8))
    app.apply_settings()
    app.after_state_change()
    project = {str(path.resolve()) for path in project_extension_paths(session.cwd)}
    loaded = [Path(e.path).name for e in session.extensions.extensions if e.path in project] if session.extensions else []
    message = trust_change_message(new, was_trusted=was_trusted, loaded_project_extensions=loaded)
    if was_trusted and not new.trusted and loaded:
        app.notify(message, severity="warning", timeout=12)  # long: the user must not miss it
    else:
        app.notify(message)
