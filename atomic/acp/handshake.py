"""`initialize`, answered before the ACP SDK and the agent are imported.

Importing the SDK's schema takes most of a second (several under load), and the client waits for
`initialize` before anything else. So the stdin pump answers it from this module, which never
imports the SDK, while the SDK and the agent load in a worker thread (server.py); the agent still
sees the client's capabilities (`remember_client`). The login methods (only when no model has a
key) are worked out in another thread from the start. The agent's own `initialize` handler
answers the same JSON from the same functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atomic import __version__

if TYPE_CHECKING:
    from atomic.core.contract import SessionOptions

ACP_PROTOCOL_VERSION = 1
LOGIN_METHOD_ID = "atomic-login"


def login_methods(template: SessionOptions) -> list[dict[str, Any]]:
    """What the client can run in a terminal to give Atomic a model, when none has a key: the
    guided start, and each subscription login (`atomic --login <provider>`). Reads files: call it
    in a worker thread."""
    if template.provider == "scripted" or template.scripted is not None:
        return []
    from atomic.core.contract import has_usable_model, subscription_logins

    if has_usable_model(template.agent_dir):
        return []
    methods: list[dict[str, Any]] = [{
        "id": LOGIN_METHOD_ID, "name": "Log in to a model provider", "type": "terminal", "args": [],
        "description": "Opens Atomic in a terminal; its guided start stores a key with /login.",
    }]
    for login in subscription_logins():
        methods.append({
            "id": f"login-{login.provider}", "name": f"Log in with {login.display_name}", "type": "terminal",
            "args": ["--login", login.provider], "description": login.title,
        })
    return methods


def initialize_result(client_version: object, auth_methods: list[dict[str, Any]]) -> dict[str, Any]:
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
        "authMethods": auth_methods,
    }


def is_initialize(message: dict[str, Any]) -> bool:
    return message.get("method") == "initialize" and "id" in message


def early_initialize(message: dict[str, Any], auth_methods: list[dict[str, Any]]) -> dict[str, Any]:
    """The response line for an `initialize` request."""
    params = message.get("params")
    version = params.get("protocolVersion") if isinstance(params, dict) else None
    return {"jsonrpc": "2.0", "id": message["id"], "result": initialize_result(version, auth_methods)}
