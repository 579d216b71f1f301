"""Events the extension system adds to the engine's event stream."""

from __future__ import annotations

from typing import Literal

from atomic.core.events import Event


class ExtensionUiRequest(Event):
    """A fire-and-forget UI request from an extension (today only `notify`).

    The wire form follows the RPC extension UI sub-protocol:
    `{"type": "extension_ui_request", "id", "method": "notify", "message", "notifyType", "extensionPath"}`.
    The TUI shows it as a notification; an RPC client gets the line as is.
    """

    type: Literal["extension_ui_request"] = "extension_ui_request"
    id: str
    method: Literal["notify"] = "notify"
    message: str
    notify_type: Literal["info", "warning", "error"] = "info"
    extension_path: str | None = None
