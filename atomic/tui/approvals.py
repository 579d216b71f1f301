"""The TUI's approver: a tool call that needs approval opens the approval card and waits for it."""

from __future__ import annotations

import asyncio

from textual.app import App

from atomic.core.permissions import PERMISSION_MODES, ApprovalRequest, Decision


class TuiApprover:
    def __init__(self, app: App[int]) -> None:
        self.app = app

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        from atomic.tui.screens.approval_screen import ApprovalScreen

        answer: asyncio.Future[Decision | None] = asyncio.get_running_loop().create_future()

        def done(decision: Decision | None) -> None:
            if not answer.done():
                answer.set_result(decision)

        screen = ApprovalScreen(request)
        self.app.push_screen(screen, callback=done)
        try:
            decision = await answer
        except asyncio.CancelledError:
            # Aborted (Esc on the conversation, or the run was cancelled): close the card too.
            screen.expire()
            raise
        return decision or "reject_once"


def next_mode(current: str) -> str:
    modes = list(PERMISSION_MODES)
    return modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]
