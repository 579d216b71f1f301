"""/login for a subscription (GitHub Copilot, ChatGPT): the screen runs the engine's login and shows
what it says (the device code and its address, the browser address), with a box to paste the
address the browser ended on when the login asks for it. Esc stops the login. Dismisses with a
`SubscriptionOutcome`; tokens never appear here, only codes and addresses meant for the person.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Input, Static

from atomic.tui.screens._picker import AtomicModal

if TYPE_CHECKING:
    from atomic.core.contract import Engine


@dataclass(frozen=True)
class SubscriptionOutcome:
    provider: str
    ok: bool
    message: str = ""


class SubscriptionLoginScreen(AtomicModal[SubscriptionOutcome]):
    DEFAULT_CSS = """
    SubscriptionLoginScreen #login-code {
        text-style: bold;
        color: $accent;
        height: auto;
        margin: 1 0;
    }
    SubscriptionLoginScreen #login-lines {
        height: auto;
    }
    """

    def __init__(self, engine: Engine, provider: str, title: str) -> None:
        super().__init__()
        self.engine = engine
        self.provider = provider
        self.title_text = title
        self.login_task: asyncio.Task[None] | None = None
        self.pending: asyncio.Future[str] | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="atomic-panel") as panel:
            panel.border_title = self.title_text
            yield Static("Starting the login…", id="login-lines")
            yield Static("", id="login-code")
            paste = Input(id="login-paste", placeholder="Paste the address from the browser and press enter")
            paste.display = False
            yield paste
            yield Static("esc stop the login", classes="panel-hint")

    def on_mount(self) -> None:
        self.query_one("#login-code").display = False
        self.login_task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        from atomic.core.contract import LoginCancelled, LoginError

        try:
            await self.engine.models.login_with_subscription(self.provider, self)
        except LoginCancelled as exc:
            self.dismiss(SubscriptionOutcome(self.provider, False, f"Login cancelled: {exc}"))
        except LoginError as exc:
            self.dismiss(SubscriptionOutcome(self.provider, False, str(exc)))
        except Exception as exc:  # a network failure: the screen must still close with words
            self.dismiss(SubscriptionOutcome(self.provider, False, f"Login failed: {type(exc).__name__}: {exc}"))
        else:
            self.dismiss(SubscriptionOutcome(self.provider, True))

    # ------------------------------------------------------------------ LoginPrompts

    def show(self, text: str, *, url: str | None = None, code: str | None = None) -> None:
        lines = text if not url or url in text else f"{text}\n{url}"
        self.query_one("#login-lines", Static).update(Content(lines))
        code_line = self.query_one("#login-code", Static)
        if code:
            code_line.update(Content(code))
            code_line.display = True

    async def ask(self, question: str) -> str:
        paste = self.query_one("#login-paste", Input)
        paste.placeholder = question
        paste.display = True
        paste.focus()
        self.pending = asyncio.get_running_loop().create_future()
        return await self.pending

    @on(Input.Submitted, "#login-paste")
    def _pasted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.pending is not None and not self.pending.done() and event.value.strip():
            self.pending.set_result(event.value.strip())
            event.input.value = ""

    def action_cancel(self) -> None:
        if self.login_task is not None and not self.login_task.done():
            self.login_task.cancel()
        self.dismiss(SubscriptionOutcome(self.provider, False, "Login cancelled."))
