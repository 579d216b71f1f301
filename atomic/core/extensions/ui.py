"""Extension UI: the dialogs and display calls an extension makes through `ctx.ui`.

The engine owns this state; frontends only present it. Every call becomes an `extension_ui_request`
event. A dialog (confirm, select, input, editor) then waits until a frontend answers it with
`resolve(id, answer)`, until its timeout, or until the agent is aborted; the last two cancel it.
Display calls (notify, setStatus, setWidget, setTitle) are fire-and-forget; statuses, widgets and
the title are also kept here so a frontend that attaches later shows them too.

Dialogs need a frontend that can answer them (the TUI or an RPC client). Without one (print and
json modes, or `activate()` before the frontend is up) a dialog is cancelled at once.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from atomic.core.events import Event
from atomic.core.extensions.events import ExtensionUiRequest, UiMethod

if TYPE_CHECKING:
    from atomic.core.permissions import ApprovalRequest, Decision

DialogMethod = Literal["confirm", "select", "input", "editor"]
DIALOG_METHODS: tuple[DialogMethod, ...] = ("confirm", "select", "input", "editor")
NOTIFY_TYPES = ("info", "warning", "error")
# A dialog nobody answers is cancelled after this long (an RPC client may ignore the request).
DEFAULT_DIALOG_TIMEOUT_S = 300.0
# Notifications sent before any frontend attached are shown when one does (a bounded backlog).
MAX_BACKLOG = 50


class UiAnswerError(ValueError):
    """An answer that does not fit its request (or answers nothing pending): the request stays open."""


@dataclass(frozen=True)
class UiAnswer:
    """A frontend's answer: `confirmed` for confirm, `value` for select/input/editor, or `cancelled`."""

    value: Any = None
    confirmed: Any = None
    cancelled: Any = None
    # A tool approval's confirm answered "always": save the request's `always_rule`.
    always: Any = None


CANCELLED = UiAnswer(cancelled=True)


def check_answer(request: ExtensionUiRequest, answer: UiAnswer) -> None:
    """Raise UiAnswerError unless `answer` is a valid answer to `request`."""
    if answer.cancelled is not None and answer.cancelled is not False:
        if answer.cancelled is not True:
            raise UiAnswerError("cancelled must be true")
        return
    if request.method == "confirm":
        if not isinstance(answer.confirmed, bool):
            raise UiAnswerError("A confirm request is answered with confirmed (true or false) or cancelled: true")
        if answer.always is not None and not isinstance(answer.always, bool):
            raise UiAnswerError("always must be true or false")
        return
    if not isinstance(answer.value, str):
        raise UiAnswerError(f"A {request.method} request is answered with value (a string) or cancelled: true")
    if request.method == "select" and answer.value not in (request.options or []):
        raise UiAnswerError(f"value {answer.value!r} is not one of the request's options")


@dataclass
class _Pending:
    request: ExtensionUiRequest
    future: asyncio.Future[UiAnswer]


class ExtensionUiHost:
    """The pending dialogs and the current statuses, widgets and title (one per AgentSession)."""

    def __init__(self, emit: Callable[[Event], None]) -> None:
        self._emit = emit
        self._pending: dict[str, _Pending] = {}
        self._frontends = 0
        self._backlog: list[ExtensionUiRequest] = []
        self._settled_listeners: list[Callable[[str], None]] = []
        self.statuses: dict[str, str] = {}
        self.widgets: dict[str, list[str]] = {}
        self.title: str | None = None

    # ------------------------------------------------------------------ frontends

    @property
    def has_frontend(self) -> bool:
        return self._frontends > 0

    def attach(self, replay: Callable[[Event], None]) -> Callable[[], None]:
        """A frontend that presents requests and answers dialogs. `replay` gets the current statuses,
        widgets and title (and notifications nobody saw yet) as requests; returns `detach`."""
        self._frontends += 1
        for event in [*self._backlog, *self.state_requests()]:
            replay(event)
        self._backlog.clear()
        detached = False

        def detach() -> None:
            nonlocal detached
            if not detached:
                detached = True
                self._frontends -= 1

        return detach

    def on_settled(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """`listener(id)` runs when a dialog ends for any reason (answer, timeout, abort), so a
        frontend can close a dialog it still shows."""
        self._settled_listeners.append(listener)
        return lambda: self._settled_listeners.remove(listener) if listener in self._settled_listeners else None

    def state_requests(self) -> list[ExtensionUiRequest]:
        out = [_request("setStatus", status_key=k, status_text=v) for k, v in sorted(self.statuses.items())]
        out += [_request("setWidget", widget_key=k, widget_lines=list(v)) for k, v in self.widgets.items()]
        if self.title is not None:
            out.append(_request("setTitle", title=self.title))
        return out

    # ------------------------------------------------------------------ dialogs

    def pending(self, request_id: str) -> ExtensionUiRequest | None:
        entry = self._pending.get(request_id)
        return entry.request if entry is not None and not entry.future.done() else None

    async def approve(self, request: ApprovalRequest) -> Decision | None:
        """The engine's default approver: a confirm dialog (RPC clients, the TUI); None, so the
        policy decides alone, while no frontend presents dialogs."""
        if not self.has_frontend:
            return None
        message = request.title if request.asked_because is None else f"{request.title}\n({request.asked_because})"
        answer = await self.dialog(
            "confirm",
            title=f"Allow {request.tool_name}?",
            message=message,
            timeout=DEFAULT_DIALOG_TIMEOUT_S,
            extension_path=None,
            always_rule=request.always_rule,
        )
        if answer.confirmed is not True or answer.cancelled is True:
            return "reject_once"
        return "allow_always" if answer.always is True and request.always_rules else "allow_once"

    def pending_ids(self) -> list[str]:
        return [i for i, p in self._pending.items() if not p.future.done()]

    async def dialog(
        self, method: DialogMethod, *, timeout: float | None, extension_path: str | None, **fields: Any
    ) -> UiAnswer:
        """Ask the frontend; returns its answer, or `cancelled` on timeout, abort or no frontend."""
        if method not in DIALOG_METHODS:
            raise ValueError(f"not a dialog method: {method}")
        if not self.has_frontend:
            return CANCELLED
        timeout_ms = None if timeout is None else max(0, round(timeout * 1000))
        request = _request(method, timeout=timeout_ms, extension_path=extension_path, **fields)
        future: asyncio.Future[UiAnswer] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = _Pending(request, future)
        try:
            self._emit(request)
            if timeout is None:
                return await future
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout)
            except TimeoutError:
                return CANCELLED
        finally:
            # Cancelled by abort (the awaiting task), timed out, or answered: gone from the registry.
            self._pending.pop(request.id, None)
            if not future.done():
                future.cancel()
            for listener in list(self._settled_listeners):
                listener(request.id)

    def resolve(self, request_id: str, answer: UiAnswer) -> None:
        """Answer a pending dialog. Raises UiAnswerError for an unknown id or an answer that does not
        fit (the dialog then stays open)."""
        entry = self._pending.get(request_id)
        if entry is None or entry.future.done():
            raise UiAnswerError(f"No pending extension UI request with id {request_id!r}")
        check_answer(entry.request, answer)
        entry.future.set_result(answer)

    def cancel_all(self) -> None:
        """Abort: every open dialog returns as cancelled."""
        for entry in list(self._pending.values()):
            if not entry.future.done():
                entry.future.set_result(CANCELLED)

    # ------------------------------------------------------------------ display calls

    def notify(self, message: str, notify_type: str, extension_path: str | None) -> None:
        kind = notify_type if notify_type in NOTIFY_TYPES else "info"
        request = _request("notify", message=message, notify_type=kind, extension_path=extension_path)
        if not self.has_frontend:
            self._backlog = [*self._backlog, request][-MAX_BACKLOG:]
        self._emit(request)

    def set_status(self, key: str, text: str | None, extension_path: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text
        self._emit(_request("setStatus", status_key=key, status_text=text, extension_path=extension_path))

    def set_widget(self, key: str, lines: list[str] | None, extension_path: str | None) -> None:
        if lines is None:
            self.widgets.pop(key, None)
        else:
            self.widgets[key] = list(lines)
        self._emit(_request("setWidget", widget_key=key, widget_lines=lines, extension_path=extension_path))

    def set_title(self, title: str, extension_path: str | None) -> None:
        self.title = title
        self._emit(_request("setTitle", title=title, extension_path=extension_path))


def _request(method: UiMethod, **fields: Any) -> ExtensionUiRequest:
    return ExtensionUiRequest(id=str(uuid.uuid4()), method=method, **fields)


def _lines(lines: Any) -> list[str] | None:
    if lines is None:
        return None
    if isinstance(lines, str):
        return lines.split("\n")
    return [str(line) for line in lines]


class ExtensionUI:
    """`ctx.ui` (and `atomic.ui`): what one extension may ask of the user interface."""

    def __init__(self, host: ExtensionUiHost, extension_path: str | None) -> None:
        self._host = host
        self._path = extension_path

    @property
    def has_ui(self) -> bool:
        """True when a frontend that answers dialogs is attached (TUI or RPC)."""
        return self._host.has_frontend

    async def confirm(self, title: str, message: str, *, timeout: float | None = DEFAULT_DIALOG_TIMEOUT_S) -> bool:
        """Yes or no. False when declined, cancelled, timed out or aborted."""
        answer = await self._host.dialog(
            "confirm", title=str(title), message=str(message), timeout=timeout, extension_path=self._path
        )
        return answer.confirmed is True and answer.cancelled is not True

    async def select(
        self, title: str, options: list[str], *, timeout: float | None = DEFAULT_DIALOG_TIMEOUT_S
    ) -> str | None:
        """One of `options`, or None when cancelled."""
        choices = [str(o) for o in options]
        if not choices:
            raise ValueError("select needs at least one option")
        answer = await self._host.dialog(
            "select", title=str(title), options=choices, timeout=timeout, extension_path=self._path
        )
        return None if answer.cancelled is True else answer.value

    async def input(
        self, title: str, placeholder: str = "", *, timeout: float | None = DEFAULT_DIALOG_TIMEOUT_S
    ) -> str | None:
        """One line of text, or None when cancelled."""
        answer = await self._host.dialog(
            "input", title=str(title), placeholder=str(placeholder), timeout=timeout, extension_path=self._path
        )
        return None if answer.cancelled is True else answer.value

    async def editor(
        self, title: str, prefill: str = "", *, timeout: float | None = DEFAULT_DIALOG_TIMEOUT_S
    ) -> str | None:
        """Multi-line text (starting from `prefill`), or None when cancelled."""
        answer = await self._host.dialog(
            "editor", title=str(title), prefill=str(prefill), timeout=timeout, extension_path=self._path
        )
        return None if answer.cancelled is True else answer.value

    def notify(self, message: str, type: str = "info") -> None:  # noqa: A002 - the documented name
        """A transient message: `type` is "info", "warning" or "error"."""
        kind = {"warn": "warning", "err": "error"}.get(type, type)
        self._host.notify(str(message), kind, self._path)

    def set_status(self, key: str, text: str | None) -> None:
        """A persistent entry in the status line (sorted by key); None removes it."""
        self._host.set_status(str(key), None if text is None else str(text), self._path)

    def set_widget(self, key: str, lines: list[str] | str | None) -> None:
        """Lines shown above the editor under `key`; None removes them."""
        self._host.set_widget(str(key), _lines(lines), self._path)

    def set_title(self, title: str) -> None:
        """The terminal window title."""
        self._host.set_title(str(title), self._path)
