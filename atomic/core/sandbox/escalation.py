"""Lifting the sandbox for one bash call (`"sandbox": false`), which only a person may allow.

In `ask` and `accept-edits` the user is always asked, even for a command an allow rule or an earlier
"always" covers: those approved running it *inside* the sandbox. In `yolo`, `sandbox.escalation`
decides: `ask` (the default) asks, `never` refuses. Where nobody can answer the call is refused, and a
refused call runs nothing at all, not even inside the sandbox.

The permission policy still has its say first (with the question left to this module), so a deny
rule or a rejected tool refuses the call without asking anything.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from atomic.core.permissions import ApprovalRequest, Decision, PermissionPolicy
from atomic.core.sandbox.policy import Escalation


def wants_escalation(tool_name: str, args: dict[str, Any]) -> bool:
    return tool_name == "bash" and args.get("sandbox") is False


async def _granted_by_the_question_below(_request: ApprovalRequest) -> Decision:
    return "allow_once"


async def review_escalation(
    permissions: PermissionPolicy, escalation: Escalation, tool_call_id: str, args: dict[str, Any]
) -> str | None:
    """None when the call may run outside the sandbox; otherwise why not (the model reads it)."""
    # The permission rules first, their question answered by the one asked below.
    probe = dataclasses.replace(permissions, approver=_granted_by_the_question_below)
    refused = await probe.check(tool_call_id, "bash", args, False)
    if refused is not None:
        return refused
    command = str(args.get("command", "")).strip()
    if permissions.mode == "yolo" and escalation == "never":
        return (
            f"Running `{command}` outside the sandbox was refused: sandbox.escalation is never. "
            "Nothing was run; the command can run inside the sandbox (without \"sandbox\": false)."
        )
    request = dataclasses.replace(
        permissions.request_for(tool_call_id, "bash", args, False),
        title=f"Run `{command}` OUTSIDE the sandbox (unrestricted writes and network)",
        # An escalation is never remembered: "always" counts as once.
        command_prefix=None,
        always_rules=(),
        asked_because="the model asked to run this one command without the sandbox",
    )
    decision = await permissions.approver(request) if permissions.approver is not None else None
    if decision is None:
        return (
            f"Running `{command}` outside the sandbox needs the user's approval, and nobody can approve it "
            "in this mode. Nothing was run; the command can run inside the sandbox (without \"sandbox\": false)."
        )
    if decision in ("allow_once", "allow_always"):
        return None
    return f"The user refused to run `{command}` outside the sandbox. Nothing was run."


async def approve_tool_call(
    permissions: PermissionPolicy,
    sandbox_active: bool,
    escalation: Escalation,
    tool_call_id: str,
    tool_name: str,
    args: dict[str, Any],
    read_only: bool,
) -> str | None:
    """The approval of one tool call: an escalation out of an active sandbox is reviewed here, every
    other call by the permission policy (None: it may run; otherwise why not)."""
    if sandbox_active and wants_escalation(tool_name, args):
        return await review_escalation(permissions, escalation, tool_call_id, args)
    return await permissions.check(tool_call_id, tool_name, args, read_only)
