"""How MCP failures are worded: the SDK's exceptions, and the detail of a server that did not start.

The words users already know stay ("did not start", "command not found", "connection lost: ...");
the detail says why: "exited with code 3: <its last stderr line>", "stdout is not JSON-RPC:
<first bytes>", "needs authentication (HTTP 401)".
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from atomic.core.mcp.errors import McpError

CONNECTION_CLOSED = -32000
INVALID_REQUEST = -32600
_FIRST_BYTES = 60
_STDERR_TAIL_BYTES = 8192


def innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def error_code(exc: BaseException) -> int | None:
    """The JSON-RPC code of the SDK's `MCPError` (args are `(code, message, ...)`), else None."""
    exc = innermost(exc)
    if type(exc).__name__ == "MCPError" and exc.args and isinstance(exc.args[0], int):
        return exc.args[0]
    return None


def describe_error(exc: BaseException) -> str:
    """The innermost useful message of an exception (the SDK wraps failures in exception groups)."""
    exc = innermost(exc)
    if isinstance(exc, McpError):
        return str(exc)
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip()
    if type(exc).__name__ == "MCPError":
        return text.split(", ", 1)[-1].strip("()'\"") if text.startswith("(") else text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def is_connection_loss(exc: BaseException) -> bool:
    exc = innermost(exc)
    if type(exc).__name__ == "MCPError":
        return error_code(exc) == CONNECTION_CLOSED
    # anyio's closed/broken stream errors, OS pipe errors and HTTP transport errors.
    return isinstance(exc, OSError | EOFError) or type(exc).__name__ in (
        "ClosedResourceError",
        "BrokenResourceError",
        "EndOfStream",
        "ConnectError",
        "RemoteProtocolError",
        "ReadError",
    )


def session_expired(exc: BaseException, session_status: int | None) -> bool:
    """A remote server that no longer knows our session (it restarted, or expired it).

    The spec's signal is HTTP 404 to a request with a session id ("start a new session"); servers
    built on the TypeScript SDK answer 400 with a -32000 error instead."""
    code = error_code(exc)
    if session_status == 404:
        return code is not None
    return session_status == 400 and code == CONNECTION_CLOSED


def bad_output(exc: BaseException) -> str:
    """A line on a stdio server's stdout that is not JSON-RPC, as its first bytes."""
    errors = exc.errors() if type(exc).__name__ == "ValidationError" else []  # type: ignore[attr-defined]
    raw = errors[0].get("input") if errors else None
    text = raw if isinstance(raw, str) else str(exc)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f"stdout is not JSON-RPC: {first[:_FIRST_BYTES]!r}"


def last_stderr_line(log_path: Path, since: int) -> str | None:
    """The server's last non-empty stderr line written to its log after byte `since`."""
    with contextlib.suppress(OSError):
        with open(log_path, "rb") as handle:
            handle.seek(max(since, 0))
            tail = handle.read()[-_STDERR_TAIL_BYTES:].decode("utf-8", errors="replace")
        for line in reversed(tail.splitlines()):
            if line.strip() and not line.startswith("--- "):
                return line.strip()[:300]
    return None


def exit_detail(returncode: int, last_line: str | None) -> str:
    how = f"exited with code {returncode}" if returncode >= 0 else f"was killed by signal {-returncode}"
    return f"{how}: {last_line}" if last_line else how
