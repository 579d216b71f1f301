"""The `task` tool: hand a self-contained piece of work to a subagent with its own context.

The tool only checks its arguments; the session's SubagentRunner (atomic/core/subagents) runs the
child. Its description lists the agents the model may choose from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atomic.core.subagents.definitions import BUILTIN_AGENTS, AgentDefinition
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

TASK_TOOL = "task"
DEFAULT_AGENT = "general"


class TaskTool(Tool):
    name = TASK_TOOL
    label = "task"
    prompt_snippet = "Hand a self-contained piece of work to a subagent"
    # Never asked itself: each tool call of the child goes through the same approvals.
    read_only = True

    def __init__(self, agents: Sequence[AgentDefinition] = BUILTIN_AGENTS) -> None:
        listing = "\n".join(f"- {agent.name}: {agent.description}" for agent in agents)
        self.description = (
            "Start a subagent for a self-contained task. It gets only your prompt (not this conversation), "
            "works with its own tools and context, and its final answer comes back as this tool's result. "
            "Use it for broad searches or independent pieces of work, so your own context stays small; "
            "several task calls in one turn run at the same time. Write the prompt so it stands alone and "
            "says what to report back.\n\nAgents:\n" + listing
        )
        self.parameters = {
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "A short (3-5 word) label for the task"},
                "prompt": {"type": "string", "minLength": 1, "description": "The whole task for the subagent"},
                "agent": {
                    "type": "string",
                    "enum": [agent.name for agent in agents],
                    "description": f"Which agent runs it (default {DEFAULT_AGENT})",
                },
            },
            "required": ["description", "prompt"],
            "additionalProperties": False,
        }

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        prompt: str = args["prompt"]
        if not prompt.strip():
            raise ToolError("task needs a prompt; it was blank")
        label = args["description"].strip() or prompt[:40]
        agent: str = args.get("agent") or DEFAULT_AGENT
        if ctx.subagents is None:
            raise ToolError("Subagents cannot start subagents of their own")
        return await ctx.subagents.run(call_id, agent, prompt, label, ctx.on_update)
