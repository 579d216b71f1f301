"""Extension UI in the terminal: dialogs as modal screens, statuses in the footer, widgets above the
editor, and the terminal title. The engine keeps the pending dialogs; this only presents them and
hands the user's answer back (`Engine.resolve_extension_ui`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.notifications import SeverityLevel

from atomic.core.events import Event
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.core.extensions.ui import UiAnswer, UiAnswerError
from atomic.tui.host import AppHost

if TYPE_CHECKING:
    from atomic.tui.screens.extension_dialogs import ExtensionDialog

_CONTROL = {c: None for c in range(32)} | {127: None}


class ExtensionUiPresenter:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.dialogs: dict[str, ExtensionDialog[Any]] = {}
        self.statuses: dict[str, str] = {}
        self._unsubscribe: list[Callable[[], None]] = [self.app.engine.extension_ui.on_settled(self._settled)]
        # Attaching replays what extensions already set (statuses, widgets, title, early notices).
        self._unsubscribe.append(self.app.engine.extension_ui.attach(self._replay))

    def close(self) -> None:
        for undo in self._unsubscribe:
            undo()
        self._unsubscribe = []

    def _replay(self, event: Event) -> None:
        if isinstance(event, ExtensionUiRequest):
            self.show(event)

    def show(self, event: ExtensionUiRequest) -> None:
        method = event.method
        if method == "notify":
            severity: SeverityLevel = "information"
            if event.notify_type in ("warning", "error"):
                severity = "warning" if event.notify_type == "warning" else "error"
            self.app.notify(event.message or "", severity=severity)
        elif method == "setStatus":
            self._set_status(event.status_key or "", event.status_text)
        elif method == "setWidget":
            self.app.extension_widgets.set_widget(event.widget_key or "", event.widget_lines)
        elif method == "setTitle":
            self._set_title(event.title or "")
        else:
            self._open_dialog(event)

    # ------------------------------------------------------------------ dialogs

    def _open_dialog(self, event: ExtensionUiRequest) -> None:
        from atomic.tui.screens.extension_dialogs import (
            ConfirmDialog,
            EditorDialog,
            InputDialog,
            SelectDialog,
        )

        title = event.title or ""
        screen: ExtensionDialog[Any]
        if event.method == "confirm":
            screen = ConfirmDialog(title, event.message or "")
        elif event.method == "select":
            screen = SelectDialog(title, list(event.options or []))
        elif event.method == "input":
            screen = InputDialog(title, event.placeholder or "")
        else:
            screen = EditorDialog(title, event.prefill or "")
        request_id, method = event.id, event.method
        self.dialogs[request_id] = screen

        def answered(result: Any) -> None:
            self.dialogs.pop(request_id, None)
            if result is None:
                answer = UiAnswer(cancelled=True)
            elif method == "confirm":
                answer = UiAnswer(confirmed=bool(result))
            else:
                answer = UiAnswer(value=str(result))
            try:
                self.app.engine.extension_ui.resolve(request_id, answer)
            except UiAnswerError:
                pass  # the engine ended it first (timeout or abort)

        self.app.push_screen(screen, callback=answered)

    def _settled(self, request_id: str) -> None:
        screen = self.dialogs.pop(request_id, None)
        if screen is not None:
            screen.expire()

    # ------------------------------------------------------------------ status line and title

    def _set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.statuses.pop(key, None)
        else:
            self.statuses[key] = text.translate(_CONTROL)
        self.app.footer.set_extension_statuses(self.statuses)

    def _set_title(self, title: str) -> None:
        clean = title.translate(_CONTROL)
        self.app.title = clean
        driver = self.app._driver
        if driver is not None and not self.app.is_headless:
            # OSC 2 sets the terminal window title.
            driver.write(f"\x1b]2;{clean}\x07")
            driver.flush()
