"""The `exit_plan` tool: the model hands its plan to the user and waits for the verdict.

Offered only in plan mode. The engine's PlanReview asks the user through the same approval every
frontend already shows (TUI card, RPC confirm, ACP permission request): yes goes on in the mode the
user planned from (ask when there was none), "always" goes on accepting edits, no keeps planning.
"""

from __future__ import annotations

from typing import Any

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

EXIT_PLAN_TOOL = "exit_plan"
PLAN_MODE_PROMPT = (
    "You are in plan mode. Nothing may be changed yet: read files, search, list folders and run "
    "read-only commands to understand the task, then call exit_plan once with the whole plan as "
    "Markdown (the steps, the files to change, how to check the result). Writes, edits and other "
    "commands are refused until the user approves the plan."
)


class ExitPlanTool(Tool):
    name = EXIT_PLAN_TOOL
    label = "exit plan"
    description = (
        "Finish planning: show the user your plan (Markdown) and ask for approval. If the user approves, "
        "you may start changing things; if not, you get their feedback and keep planning."
    )
    parameters = {
        "type": "object",
        "properties": {"plan": {"type": "string", "minLength": 1, "description": "The plan, as Markdown"}},
        "required": ["plan"],
        "additionalProperties": False,
    }
    prompt_snippet = "Present the plan for approval (plan mode only)"
    # The call itself changes nothing; approving the plan is its whole purpose.
    read_only = True

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        plan: str = args["plan"]
        if not plan.strip():
            raise ToolError("exit_plan needs the plan as Markdown; it was blank")
        if ctx.plan_review is None:
            raise ToolError("exit_plan is not available here")
        return await ctx.plan_review.review(call_id, plan.strip())
