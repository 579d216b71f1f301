"""Extension dialogs (and MCP servers' questions, which use them) shown by an ACP client.

ACP has no dialog of its own for "pick one" or "yes/no", so those are permission requests whose
options are the choices (pi's ACP adapter does the same). A line of text is an `elicitation/create`
form with one field when the client offers form elicitation; otherwise it is cancelled. A
request the client cancels, or one that fails, cancels the dialog.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp.schema import (
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    PermissionOption,
    ToolCallUpdate,
)

from atomic.core.contract import Engine, ExtensionUiRequest, UiAnswer

CANCELLED = UiAnswer(cancelled=True)
_FIELD = "answer"


class AcpDialogs:
    def __init__(self, conn: Any, engine: Engine, session_id: str, *, can_elicit: bool) -> None:
        self.conn = conn
        self.engine = engine
        self.session_id = session_id
        self.can_elicit = can_elicit
        self._tasks: set[asyncio.Task[None]] = set()
        self._asked: set[str] = set()
        # New dialogs arrive as engine events; attaching counts this client as a frontend that
        # answers dialogs (and replays any already open).
        self._unsubscribe = engine.subscribe(self._show)
        self._detach = engine.extension_ui.attach(self._show)

    def close(self) -> None:
        self._unsubscribe()
        self._detach()
        for task in list(self._tasks):
            task.cancel()

    def _show(self, event: Any) -> None:
        if not isinstance(event, ExtensionUiRequest) or event.method not in ("confirm", "select", "input", "editor"):
            return  # notifications, statuses and widgets have no place in an editor's agent panel
        if event.id in self._asked:
            return
        self._asked.add(event.id)
        task = asyncio.ensure_future(self._answer(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: ExtensionUiRequest) -> None:
        try:
            answer = await self._ask(request)
        except asyncio.CancelledError:
            raise
        except Exception:  # the client failed or went away: the dialog is cancelled
            answer = CANCELLED
        if self.engine.extension_ui.pending(request.id) is not None:
            try:
                self.engine.extension_ui.resolve(request.id, answer)
            except ValueError:
                pass  # answered or timed out meanwhile

    async def _ask(self, request: ExtensionUiRequest) -> UiAnswer:
        title = request.title or "Atomic asks"
        if request.method == "confirm":
            options = [("yes", "Yes", "allow_once"), ("no", "No", "reject_once")]
            picked = await self._permission(request, f"{title}\n{request.message or ''}".strip(), options)
            return CANCELLED if picked is None else UiAnswer(confirmed=picked == "yes")
        if request.method == "select":
            choices = list(request.options or [])
            options = [(f"choice-{i}", choice, "allow_once") for i, choice in enumerate(choices)]
            picked = await self._permission(request, title, options)
            return CANCELLED if picked is None else UiAnswer(value=choices[int(picked.split("-")[1])])
        if not self.can_elicit:
            return CANCELLED
        return await self._elicit(request, title)

    async def _permission(self, request: ExtensionUiRequest, title: str,
                          options: list[tuple[str, str, str]]) -> str | None:
        response = await self.conn.request_permission(
            session_id=self.session_id,
            tool_call=ToolCallUpdate(tool_call_id=f"ui-{request.id}", title=title, kind="other", status="pending"),
            options=[PermissionOption(option_id=i, name=n, kind=k) for i, n, k in options],  # type: ignore[arg-type]
        )
        outcome = response.outcome
        picked = outcome.option_id if outcome.outcome == "selected" else None
        return picked if picked in {i for i, _n, _k in options} else None

    async def _elicit(self, request: ExtensionUiRequest, title: str) -> UiAnswer:
        default = request.prefill if request.method == "editor" else None
        schema = ElicitationSchema(
            type="object",
            properties={_FIELD: ElicitationStringPropertySchema(
                type="string", title=title, description=request.placeholder or None, default=default)},
            required=[_FIELD],
        )
        response = await self.conn.create_elicitation(
            message=title, mode=ElicitationFormSessionMode(session_id=self.session_id, requested_schema=schema),
        )
        if response.action != "accept":
            return CANCELLED
        value = (response.content or {}).get(_FIELD)
        return UiAnswer(value=value) if isinstance(value, str) else CANCELLED
