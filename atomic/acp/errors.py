"""JSON-RPC errors whose `message` says what went wrong.

Clients show an error's `message` (the TypeScript SDK's default), so a fixed "Internal error" with
the real reason in `data` shows nothing useful. The code keeps the JSON-RPC meaning; the message
is the reason itself, and `data.details` repeats it for clients that read that.
"""

from __future__ import annotations

from acp import RequestError

INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def _error(code: int, message: str) -> RequestError:
    text = message.strip() or "Unknown error"
    return RequestError(code, text, {"details": text})


def internal_error(message: str) -> RequestError:
    return _error(INTERNAL_ERROR, message)


def invalid_params(message: str) -> RequestError:
    return _error(INVALID_PARAMS, message)


def invalid_request(message: str) -> RequestError:
    return _error(INVALID_REQUEST, message)
