"""Asking about project trust in the TUI and applying the answer to the running session."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from atomic.core.trust import trust_change_message
from atomic.tui.host import AppHost
from atomic.tui.screens.trust_screen import TrustChoice, TrustScreen


def ask_on_first_run(app: AppHost, *, then: Callable[[], Awaitable[None]]) -> bool:
    """Show the dialog when `ask` left the folder undecided and it brings something (True if shown);
    `then` (e.g. the initial message) runs once the answer has been applied."""
    engine = app.engine
    trust = engine.trust.decision
    if trust is None or not trust.undecided:
        return False
    offer = engine.trust.skipped()
    if offer.empty:
        return False
    screen = TrustScreen(trust, offer, first_run=True)

    def answered(choice: TrustChoice | None) -> None:
        if screen.typed_ahead:
            app.editor.insert(screen.typed_ahead)  # typed while the dialog was open: nothing is lost
        app.editor.focus()
        _answer(app, choice, then)

    app.push_screen(screen, answered)
    return True


def open_trust_screen(app: AppHost) -> None:
    """`/trust`: the decision for this folder, what the folder brings, and the choices to change it."""
    engine = app.engine
    trust = engine.trust.decision
    if trust is None:
        app.notify("/trust is not available yet", severity="warning")
        return
    screen = TrustScreen(
        trust, engine.trust.project_resources(), first_run=False, can_forget=engine.trust.saved_here()
    )
    app.push_screen(screen, lambda choice: _answer(app, choice))


def _answer(app: AppHost, choice: TrustChoice | None, then: Callable[[], Awaitable[None]] | None = None) -> None:
    async def apply_then() -> None:
        if choice is not None:
            await apply_choice(app, choice)
        if then is not None:
            await then()

    app.run_worker(apply_then(), group="trust", exclusive=True)


async def apply_choice(app: AppHost, choice: TrustChoice) -> None:
    """Save the choice (except "once") and load or stop using the project's resources."""
    engine = app.engine
    current = engine.trust.decision
    was_trusted = current is not None and current.trusted
    try:
        new = await engine.trust.decide(choice)
    except (OSError, ValueError) as exc:  # trust.json could not be written: nothing changed
        app.notify(f"Could not save the trust decision: {exc}", severity="error")
        return
    app.apply_settings()
    app.after_state_change()
    loaded = engine.trust.loaded_extensions()
    message = trust_change_message(new, was_trusted=was_trusted, loaded_project_extensions=loaded)
    if was_trusted and not new.trusted and loaded:
        app.notify(message, severity="warning", timeout=12)  # long: the user must not miss it
    else:
        app.notify(message)
