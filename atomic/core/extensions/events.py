"""Events the extension system adds to the engine's event stream."""

from __future__ import annotations

from typing import Literal

from atomic.core.events import Event

UiMethod = Literal["confirm", "select", "input", "editor", "notify", "setStatus", "setWidget", "setTitle"]


class ExtensionUiRequest(Event):
    """A request from an extension to the user interface (see `atomic.core.extensions.ui`).

    The wire form is the RPC extension UI sub-protocol, one shape per method (absent fields omitted):
    confirm {title, message, timeout, alwaysRule (tool approvals only)}, select {title, options, timeout}, input {title, placeholder,
    timeout}, editor {title, prefill, timeout}, notify {message, notifyType}, setStatus {statusKey,
    statusText}, setWidget {widgetKey, widgetLines}, setTitle {title}; plus `extensionPath`. A missing
    `statusText` / `widgetLines` removes that status / widget. `timeout` is in milliseconds.
    """

    type: Literal["extension_ui_request"] = "extension_ui_request"
    id: str
    method: UiMethod = "notify"
    title: str | None = None
    message: str | None = None
    options: list[str] | None = None
    placeholder: str | None = None
    prefill: str | None = None
    notify_type: Literal["info", "warning", "error"] | None = None
    status_key: str | None = None
    status_text: str | None = None
    widget_key: str | None = None
    widget_lines: list[str] | None = None
    timeout: int | None = None
    extension_path: str | None = None
    # On a tool approval's confirm: the rule(s) an answer with `always: true` saves (absent: it saves none).
    always_rule: str | None = None
