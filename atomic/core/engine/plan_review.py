"""PlanReview: what happens when the model calls `exit_plan` (atomic/core/tools/exit_plan.py)."""

from __future__ import annotations

from collections.abc import Callable

from atomic.core.permissions import ApprovalRequest, PermissionPolicy
from atomic.core.tools.base import ToolError, ToolOutput

PLAN_TITLE = "Approve this plan? (yes: go on, asking before changes · always: go on accepting edits · no: keep planning)"


def plan_title(plan: str) -> str:
    """The question with the plan under it: every frontend shows an approval's title in full."""
    return f"{PLAN_TITLE}\n\n{plan}"


class PlanReview:
    def __init__(self, policy: PermissionPolicy, switch_mode: Callable[[str], None], mode_before_plan: Callable[[], str]) -> None:
        self._policy = policy
        self._switch_mode = switch_mode
        self._mode_before_plan = mode_before_plan

    async def review(self, call_id: str, plan: str) -> ToolOutput:
        policy = self._policy
        if policy.mode != "plan":
            raise ToolError("exit_plan is only for plan mode, and this session is not planning now")
        request = ApprovalRequest(
            tool_call_id=call_id, tool_name="exit_plan", args={"plan": plan}, kind="other", title=plan_title(plan)
        )
        decision = await policy.approver(request) if policy.approver is not None else None
        if decision is None:
            raise ToolError("Nobody can approve the plan in this mode; the session stays in plan mode")
        if decision in ("allow_once", "allow_always"):
            mode = "accept-edits" if decision == "allow_always" else self._mode_before_plan()
            self._switch_mode(mode)
            return ToolOutput.text(
                f"The user approved the plan. Permission mode is now {mode}: carry out the plan.",
                {"approved": True, "mode": mode},
            )
        return ToolOutput.text(
            "The user did not approve the plan: keep planning (still in plan mode), ask what to change if unsure.",
            {"approved": False},
        )
