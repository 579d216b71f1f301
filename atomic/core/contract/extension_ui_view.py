"""`engine.extension_ui`: extension dialogs, statuses and widgets, over `ExtensionUiHost`."""

from __future__ import annotations

from collections.abc import Callable

from atomic.core.events import Event
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.core.extensions.ui import ExtensionUiHost, UiAnswer


class ExtensionUiView:
    """How a frontend presents what extensions (and MCP servers) ask, and answers them."""

    def __init__(self, host: ExtensionUiHost) -> None:
        self._ui = host

    def attach(self, show: Callable[[Event], None]) -> Callable[[], None]:
        """Present dialogs, statuses and widgets; `show` first gets what is pending now. Returns a
        function that detaches the frontend."""
        return self._ui.attach(show)

    def on_settled(self, listener: Callable[[str], None]) -> Callable[[], None]:
        """`listener(request_id)` when a dialog is answered, cancelled or timed out elsewhere."""
        return self._ui.on_settled(listener)

    def resolve(self, request_id: str, answer: UiAnswer) -> None:
        """Answer a pending dialog."""
        self._ui.resolve(request_id, answer)

    def pending(self, request_id: str) -> ExtensionUiRequest | None:
        """The pending dialog request `request_id`, None when none is pending under that id."""
        return self._ui.pending(request_id)
