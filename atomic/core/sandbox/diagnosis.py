"""Saying which sandbox rule stood in the way of a failed command, so the model need not guess.

The command's own error messages are the evidence: a write refused by a read-only mount reads
"Read-only file system"; without network, connections fail as unreachable or unresolvable, and a Unix
socket cannot be opened ("Operation not permitted"); writing a protected name that did not exist meets
the empty folder that holds its place ("Is a directory").
"""

from __future__ import annotations

import re

from atomic.core.sandbox.policy import SandboxPolicy

_WRITE_SIGNS = re.compile(r"read-only file system|EROFS", re.IGNORECASE)
# A protected name that did not exist is held by an empty read-only folder while the command runs.
_PLACEHOLDER_SIGN = re.compile(r"(?:\.mcp\.json|\.atomic|\.git/config)\b.*(?:is a directory|EISDIR)", re.IGNORECASE)
_NETWORK_SIGNS = re.compile(
    r"network is unreachable|ENETUNREACH|could not resolve|name or service not known|"
    r"temporary failure in name resolution|nodename nor servname|getaddrinfo|connection refused|ECONNREFUSED|"
    r"operation not permitted|EPERM",
    re.IGNORECASE,
)
ESCALATE_HINT = (
    'If this command really needs it, call bash again with "sandbox": false to ask the user to run this one '
    "command outside the sandbox."
)


def explain_block(policy: SandboxPolicy, output: str) -> str | None:
    """The rule a failed sandboxed command most likely ran into, in one paragraph; None when nothing
    in its output points at the sandbox."""
    reasons: list[str] = []
    if _WRITE_SIGNS.search(output) or _PLACEHOLDER_SIGN.search(output):
        reasons.append(f"a write was refused because {policy.describe_writes()}")
    if not policy.network and _NETWORK_SIGNS.search(output):
        reasons.append(
            "sandbox.network is false: the command has no network (only its own loopback; the host's "
            "loopback services and Unix sockets are out of reach)"
        )
    if not reasons:
        return None
    return "The sandbox was in the way: " + "; ".join(reasons) + ". " + ESCALATE_HINT
