"""`initialize`, answered before the ACP SDK and the engine are even imported.

Importing the SDK's schema takes most of a second (several under load), and the client waits for
`initialize` before anything else. So the stdin pump answers it from this module, which imports
neither, while the SDK and the agent load in a worker thread (server.py); the agent still sees the
client's capabilities (`remember_client`). The agent's own `initialize` handler answers the same
JSON from the same function.
"""

from __future__ import annotations

from typing import Any

from atomic import __version__

ACP_PROTOCOL_VERSION = 1
LOGIN_METHOD_ID = "atomic-login"


def initialize_result(client_version: object) -> dict[str, Any]:
    """The `initialize` result as protocol JSON."""
    version = client_version if isinstance(client_version, int) and not isinstance(client_version, bool) else 1
    return {
        "protocolVersion": max(1, min(version, ACP_PROTOCOL_VERSION)),
        "agentInfo": {"name": "atomic", "title": "Atomic", "version": __version__},
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": False},
            "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
        },
        # Always offered (the ACP registry lists only agents with a login): editors ask for it only
        # when a session cannot start, and a key found in the environment or auth.json needs none.
        "authMethods": [{
            "id": LOGIN_METHOD_ID, "name": "Log in to a model provider", "type": "terminal", "args": [],
            "description": "Opens Atomic in a terminal; its guided start stores a key with /login.",
        }],
    }


def early_initialize(message: dict[str, Any]) -> dict[str, Any] | None:
    """The response line for an `initialize` request (None for any other message)."""
    if message.get("method") != "initialize" or "id" not in message:
        return None
    params = message.get("params")
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    return {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version)}
