"""The TUI's approver: a tool call that needs approval shows the approval card and waits for it.

One card at a time: calls that run concurrently wait for the card before them to be answered.
"""

from __future__ import annotations

import asyncio

from atomic.core.contract import PERMISSION_MODES, ApprovalAnswer, ApprovalRequest, Decision
from atomic.tui.approval_card import ApprovalCard
from atomic.tui.approval_preview import approval_preview
from atomic.tui.host import AppHost


class TuiApprover:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.card: ApprovalCard | None = None
        self._one_at_a_time = asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> Decision | ApprovalAnswer | None:
        async with self._one_at_a_time:
            return await self._ask(request)

    async def _ask(self, request: ApprovalRequest) -> Decision | ApprovalAnswer:
        answer: asyncio.Future[Decision | ApprovalAnswer | None] = asyncio.get_running_loop().create_future()

        def done(result: Decision | ApprovalAnswer | None) -> None:
            if not answer.done():
                answer.set_result(result)

        app = self.app
        card = ApprovalCard(request, approval_preview(request, app.engine.cwd), done, grace_s=app.approval_grace_s)
        self.card = card
        await app.mount(card, before=app.editor)
        app.set_activity("waiting for approval")
        app.notify_attention(f"Atomic is waiting for your approval: {request.title}")
        try:
            result = await answer
        finally:
            # Answered, or aborted (Esc, the run was cancelled): the card goes and the editor gets the keys.
            self.card = None
            card.answered = True
            app.set_activity("working" if app.engine.is_streaming else None)
            await card.remove()
            app.editor.focus()
        return result or "reject_once"


def next_mode(current: str) -> str:
    modes = list(PERMISSION_MODES)
    return modes[(modes.index(current) + 1) % len(modes)] if current in modes else modes[0]
