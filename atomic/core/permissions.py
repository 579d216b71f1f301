"""Approval policies: which tool calls need the user's yes before they run.

Modes: `ask` (bash, write, edit and MCP tools need approval; read-only tools never do),
`accept-edits` (only bash and MCP tools), `yolo` (nothing is asked). Within a session the user can
allow (or reject) a tool, or for bash a command prefix, "always"; that memory lasts as long as the
session object. A frontend installs the approver that asks the person: the TUI's approval card,
RPC's extension UI confirm request, ACP's `session/request_permission`.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

PermissionMode = Literal["ask", "accept-edits", "yolo"]
PERMISSION_MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
Decision = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
ToolKind = Literal["execute", "edit", "mcp", "other"]

EDIT_TOOLS = frozenset({"write", "edit"})
EXECUTE_TOOLS = frozenset({"bash"})
MCP_PREFIX = "mcp__"
# Shell syntax that can chain or redirect: a remembered prefix never covers such a command.
_COMPOUND = re.compile(r"[;&|`<>\n]|\$\(")


def parse_mode(value: str) -> PermissionMode:
    for mode in PERMISSION_MODES:
        if value == mode:
            return mode
    raise ValueError(f"Unknown permission mode {value!r}; use one of {', '.join(PERMISSION_MODES)}")


def tool_kind(tool_name: str) -> ToolKind:
    if tool_name in EXECUTE_TOOLS:
        return "execute"
    if tool_name in EDIT_TOOLS:
        return "edit"
    if tool_name.startswith(MCP_PREFIX):
        return "mcp"
    return "other"


def needs_approval(mode: PermissionMode, tool_name: str) -> bool:
    kind = tool_kind(tool_name)
    if mode == "yolo" or kind == "other":
        return False
    if mode == "accept-edits":
        return kind in ("execute", "mcp")
    return True


def command_prefix(command: str) -> str | None:
    """The part of a bash command that "always allow" remembers: the program and its subcommand.

    `git status --short` -> `git status`; `ls -la` -> `ls`. None for compound commands (pipes,
    `&&`, redirections, substitutions), which are always asked about again.
    """
    if _COMPOUND.search(command):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words:
        return None
    # A bare lower-case word is a subcommand (`git status`, `npm test`); a file name or flag is not.
    if len(words) > 1 and re.fullmatch(r"[a-z][a-z0-9:-]*", words[1]):
        return f"{words[0]} {words[1]}"
    return words[0]


@dataclass(frozen=True)
class ApprovalRequest:
    """One tool call waiting for a yes or no."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    kind: ToolKind
    title: str
    # For bash: what "always allow" would remember (None: it cannot be remembered).
    command_prefix: str | None = None


@dataclass(frozen=True)
class ApprovalAnswer:
    """A decision with the person's words for the model (a "no, because …")."""

    decision: Decision
    reason: str = ""


# An approver returns None when nobody could be asked (no frontend that answers dialogs).
Approver = Callable[[ApprovalRequest], Awaitable[Decision | ApprovalAnswer | None]]


def describe(tool_name: str, args: dict[str, Any]) -> str:
    """A one-line title a person can decide on."""
    if tool_name == "bash":
        return f"Run `{str(args.get('command', '')).strip()}`"
    if tool_name in EDIT_TOOLS:
        verb = "Write" if tool_name == "write" else "Edit"
        return f"{verb} {args.get('path', '(no path)')}"
    if tool_name.startswith(MCP_PREFIX):
        _, server, tool = (tool_name.split("__", 2) + ["", ""])[:3]
        return f"Call {tool} on MCP server {server}"
    return f"Use {tool_name}"


@dataclass
class PermissionPolicy:
    mode: PermissionMode = "yolo"
    approver: Approver | None = None
    allowed_tools: set[str] = field(default_factory=set)
    rejected_tools: set[str] = field(default_factory=set)
    allowed_prefixes: set[str] = field(default_factory=set)

    def request_for(self, tool_call_id: str, tool_name: str, args: dict[str, Any]) -> ApprovalRequest:
        prefix = command_prefix(str(args.get("command", ""))) if tool_name in EXECUTE_TOOLS else None
        return ApprovalRequest(
            tool_call_id=tool_call_id,
            tool_name=tool_name,
            args=args,
            kind=tool_kind(tool_name),
            title=describe(tool_name, args),
            command_prefix=prefix,
        )

    def _remembered(self, request: ApprovalRequest) -> bool | None:
        if request.tool_name in self.rejected_tools:
            return False
        if request.kind == "execute":
            return True if request.command_prefix in self.allowed_prefixes else None
        return True if request.tool_name in self.allowed_tools else None

    def _remember(self, request: ApprovalRequest, decision: Decision) -> None:
        if decision == "reject_always":
            self.rejected_tools.add(request.tool_name)
        elif decision == "allow_always":
            if request.kind != "execute":
                self.allowed_tools.add(request.tool_name)
            elif request.command_prefix is not None:
                self.allowed_prefixes.add(request.command_prefix)

    async def check(self, tool_call_id: str, tool_name: str, args: dict[str, Any]) -> str | None:
        """None when the call may run; otherwise the reason it was refused (the model sees it)."""
        if not needs_approval(self.mode, tool_name):
            return None
        request = self.request_for(tool_call_id, tool_name, args)
        remembered = self._remembered(request)
        if remembered is True:
            return None
        if remembered is False:
            return f"The user rejected {tool_name} for this session."
        answer = await self.approver(request) if self.approver is not None else None
        reason = answer.reason.strip() if isinstance(answer, ApprovalAnswer) else ""
        decision = answer.decision if isinstance(answer, ApprovalAnswer) else answer
        if decision is None:
            return (
                f"{request.title} needs approval (permission mode {self.mode}), and nobody can approve it "
                "in this mode. Ask the user to change the permission mode."
            )
        self._remember(request, decision)
        if decision in ("allow_once", "allow_always"):
            return None
        if reason:
            return f"The user rejected this call: {request.title}. The user says: {reason}"
        return f"The user rejected this call: {request.title}."
