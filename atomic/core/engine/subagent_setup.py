"""Building the session's SubagentRunner: which agents exist and what each child gets from the parent.

Part of the composition root (like factory.py): it reads the session to hand each child plain values
and callables, so the child run and the runner never see the session itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from atomic.core.engine.run_config import tool_context as session_tool_context
from atomic.core.subagents.child import ChildSetup
from atomic.core.subagents.definitions import CHILD_TOOLS, AgentDefinition, discover_agents
from atomic.core.subagents.runner import SubagentRunner
from atomic.core.tools.base import ToolContext, ToolOutput

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession


def _child_setup(session: AgentSession, agent: AgentDefinition) -> ChildSetup:
    from atomic.core.models.cost import compute_cost
    from atomic.core.models.resolver import ModelResolutionError, resolve_model
    from atomic.core.resources.system_prompt import subagent_system_prompt
    from atomic.core.tools.registry import create_builtin_tools

    model = session.model
    assert model is not None  # a prompt is running, so there is a model
    level = session.models.thinking_level
    if agent.model:
        try:
            resolved = resolve_model(session.models.registry, agent.model)
            model, level = resolved.model, resolved.thinking_level or level
        except ModelResolutionError:
            session.notify_once(f"subagent-model:{agent.name}",
                                f"Agent {agent.name}: model {agent.model!r} not found; it uses {model.id}")
    if agent.thinking:
        level = agent.thinking
    if not model.reasoning:
        level = "off"
    tools = {tool.name: tool for tool in create_builtin_tools([n for n in agent.tools if n in CHILD_TOOLS])}

    def tool_context(on_update: Callable[[ToolOutput], None]) -> ToolContext:
        return dataclasses.replace(session_tool_context(session, on_update), subagents=None)

    return ChildSetup(
        model=model,
        thinking_level=level,
        system_prompt=subagent_system_prompt(
            cwd=session.cwd,
            tools=[(t.name, t.prompt_snippet or t.description.split("\n")[0]) for t in tools.values()],
            instructions=agent.instructions,
            context_files=session.toolset.context_files,
        ),
        tools=tools,
        settings=lambda: session.settings,
        permissions=session.permissions,
        sandbox=session.sandbox,
        api_key=session.models.api_key_for(model),
        headers=session.models.headers_for(model),
        provider_for=session.models.provider_for,
        tool_context=tool_context,
        fill_cost=lambda usage: compute_cost(model, usage),
        notify_once=session.notify_once,
    )


def build_subagents(session: AgentSession, include_project: bool) -> SubagentRunner:
    agents, warnings = discover_agents(session.cwd, session.agent_dir, include_project)
    session.startup_warnings.extend(warnings)
    return SubagentRunner(
        agents=agents,
        setup_for=lambda agent: _child_setup(session, agent),
        emit=session.emit_to_listeners,
        cwd=session.cwd,
        session_dir=lambda: session.files.session_dir,
        parent_file=lambda: session.store.path,
        max_concurrent=lambda: session.settings.subagents.max_concurrent,
    )
