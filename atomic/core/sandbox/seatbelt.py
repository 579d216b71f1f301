"""The macOS launcher: a Seatbelt profile (`sandbox-exec -p PROFILE`) written from a SandboxPolicy.

In a Seatbelt profile the last rule that matches an operation decides, so the profile reads top-down
like the policy: everything allowed, then writes denied, then the writable roots allowed again, then
the protected paths denied again. macOS has no network namespace: without network the command may
still use loopback (its own servers, but also the host's loopback services), every other connection is
refused, and so are Unix sockets outside the writable roots (docs/security.md).
"""

from __future__ import annotations

from pathlib import Path

from atomic.core.sandbox.policy import SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"
# Writable on every Mac whatever the policy: the null device, terminals, and the per-user temp and cache
# folders that `confstr(_CS_DARWIN_USER_TEMP_DIR)` points into (system tools fail without them).
_ALWAYS_WRITABLE_LITERALS = ("/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty")
_ALWAYS_WRITABLE_SUBPATHS = ("/private/var/folders",)
_FOLDER_NAMES = frozenset({".git/hooks", ".atomic"})


def quote(text: str) -> str:
    """A Seatbelt (Scheme) string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _subpath(path: Path | str) -> str:
    return f"(subpath {quote(str(path))})"


def _literal(path: Path | str) -> str:
    return f"(literal {quote(str(path))})"


def seatbelt_profile(policy: SandboxPolicy) -> str:
    """The profile text for `policy` (which must be active)."""
    lines = [
        "(version 1)",
        "(allow default)",
        "; writes: nowhere but the writable roots",
        "(deny file-write*)",
        "(allow file-write*",
    ]
    lines += [f"  {_subpath(root)}" for root in policy.writable_roots]
    lines += [f"  {_subpath(path)}" for path in _ALWAYS_WRITABLE_SUBPATHS]
    lines += [f"  {_literal(path)}" for path in _ALWAYS_WRITABLE_LITERALS]
    lines[-1] += ")"
    if policy.protected:
        lines.append("; never the files that decide what the next start trusts")
        lines.append("(deny file-write*")
        for path in policy.protected:
            name = path.relative_to(policy.cwd).as_posix()
            # A folder's own name too: creating or renaming it is a write of that literal path.
            lines.append(f"  {_literal(path)}")
            if name in _FOLDER_NAMES:
                lines.append(f"  {_subpath(path)}")
        lines[-1] += ")"
    if not policy.network:
        lines += [
            "; network: loopback only, and no Unix socket outside the writable roots",
            "(deny network*)",
            '(allow network-bind (local ip "localhost:*"))',
            '(allow network-inbound (local ip "localhost:*"))',
            '(allow network-outbound (remote ip "localhost:*"))',
            "(allow network-outbound",
        ]
        lines += [f"  (remote unix-socket (subpath {quote(str(root))}))" for root in policy.writable_roots]
        lines[-1] += ")"
        lines.append("(allow network-bind (local unix-socket))")
    return "\n".join(lines) + "\n"


def seatbelt_argv(policy: SandboxPolicy, command: list[str | bytes]) -> list[str | bytes]:
    return [SANDBOX_EXEC, "-p", seatbelt_profile(policy), *command]
