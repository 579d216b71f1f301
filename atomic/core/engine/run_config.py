"""The `AgentConfig` of a session's run: the loop's view of an `AgentSession`, as callables.

Built once per run (`AgentSession.start_run`); every callable reads the session when it is called,
so a model, setting or queue changed during the run counts from the loop's next step. The request
of each turn (`build_request`), the tool a call names (`find_tool`) and the context a tool runs in
(`tool_context`) are built here too. `RunSource` names the members this reads (the session has
them), so this module does not import the session.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from atomic.core.agent.config import AgentConfig, RetryPolicy, ToolAccess
from atomic.core.agent.queues import MessageQueue, QueuedMessage
from atomic.core.engine.compaction_runner import CompactionRunner
from atomic.core.engine.model_selection import ModelSelection
from atomic.core.engine.plan_review import PlanReview
from atomic.core.engine.toolset import Toolset
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import Usage
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.providers.base import StreamRequest, ToolSpec
from atomic.core.sandbox.control import SandboxControl
from atomic.core.sandbox.escalation import approve_tool_call
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings
from atomic.core.shell_env import model_command_env
from atomic.core.tools.base import EditorFiles, EditorTerminal, Tool, ToolContext, ToolOutput
from atomic.core.tools.exit_plan import EXIT_PLAN_TOOL, PLAN_MODE_PROMPT, ExitPlanTool

if TYPE_CHECKING:
    from atomic.core.checkpoints.manager import Checkpoints
    from atomic.core.mcp.manager import McpManager
    from atomic.core.subagents.runner import SubagentRunner


class RunSource(Protocol):
    cwd: Path
    agent_dir: Path
    toolset: Toolset
    exit_plan_tool: ExitPlanTool
    plan_review: PlanReview
    mcp: McpManager | None
    subagents: SubagentRunner | None
    editor_files: EditorFiles | None
    editor_terminal: EditorTerminal | None
    steering: MessageQueue
    follow_ups: MessageQueue
    hooks: HookBus
    permissions: PermissionPolicy
    sandbox: SandboxControl
    compaction: CompactionRunner
    models: ModelSelection
    auto_retry_enabled: bool
    auto_compaction_enabled: bool

    @property
    def model(self) -> Model | None: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def checkpoints(self) -> Checkpoints: ...

    def emit(self, event: Event) -> None: ...
    def context_messages(self) -> list[Any]: ...
    def record_message(self, message: Any) -> None: ...
    def queue_changed(self) -> None: ...
    def notify_once(self, key: str, message: str) -> None: ...


def retry_policy(settings: Settings, auto_retry_enabled: bool) -> RetryPolicy:
    retry = settings.retry
    return RetryPolicy(
        enabled=auto_retry_enabled and retry.enabled,
        max_retries=retry.max_retries,
        base_delay_ms=retry.base_delay_ms,
        max_delay_ms=retry.provider.max_retry_delay_ms or 0,
    )


async def build_request(session: RunSource, messages: list[Any]) -> StreamRequest:
    """The request of one turn: extension `context` hooks, the key, the tools offered (plan mode's
    and the MCP servers' included) and the system prompt."""
    model = session.model
    assert model is not None
    if session.hooks.has("context"):
        payload = {"messages": messages}
        for result in await session.hooks.emit("context", payload):
            if isinstance(result, dict) and isinstance(result.get("messages"), list):
                messages = result["messages"]
    api_key, headers = await session.models.request_credentials(model, messages)
    timeout_ms = session.settings.retry.provider.timeout_ms
    tools = session.toolset.active_tools()
    system_prompt = session.toolset.system_prompt
    if session.permissions.mode == "plan":
        tools = tools + [session.exit_plan_tool]
        system_prompt = f"{system_prompt}\n\n{PLAN_MODE_PROMPT}"
    if session.mcp is not None:
        # Servers still starting get a bounded wait so their tools are offered (abort cancels it).
        await session.mcp.wait_ready()
        tools = tools + session.mcp.request_tools(model.context_window)
    return StreamRequest(
        model=model,
        system_prompt=system_prompt,
        messages=messages,
        tools=[ToolSpec(name=t.name, description=t.description, parameters=t.parameters) for t in tools],
        thinking_level=session.models.thinking_level,
        api_key=api_key,
        headers=headers,
        timeout_s=timeout_ms / 1000 if timeout_ms else None,
        session_id=session.store.session_id,
        thinking_budgets=session.settings.thinking_budgets,
        web_search=session.settings.web_search,
    )

def find_tool(session: RunSource, name: str) -> Tool | None:
    """The tool a call names: an active one, `exit_plan` while planning, or an MCP server's."""
    if name in session.toolset.active_tool_names:
        return session.toolset.tools.get(name)
    if name == EXIT_PLAN_TOOL and session.permissions.mode == "plan":
        return session.exit_plan_tool
    return session.mcp.find_tool(name) if session.mcp is not None else None

def tool_context(session: RunSource, on_update: Callable[[ToolOutput], None]) -> ToolContext:
    """What a tool call runs with: the folder, the shell, the environment, the sandbox."""
    model = session.model
    env = {
        "ATOMIC_SESSION_ID": session.store.session_id,
        "ATOMIC_SESSION_FILE": str(session.store.path or ""),
        "AI_AGENT": "atomic",
    }
    return ToolContext(
        cwd=session.cwd,
        on_update=on_update,
        session_id=session.store.session_id,
        shell_path=session.settings.shell_path,
        shell_command_prefix=session.settings.shell_command_prefix,
        agent_dir=session.agent_dir,
        supports_images=bool(model and model.supports_images()) and not session.settings.images.block_images,
        env=env,
        base_env=model_command_env(
            os.environ,
            pass_names=session.settings.shell_env.pass_names,
            pass_secrets=session.settings.shell_env.pass_secrets,
            secret_names=session.models.registry.key_env_names(),
        ),
        editor_files=session.editor_files,
        editor_terminal=session.editor_terminal,
        subagents=session.subagents,
        plan_review=session.plan_review,
        path_guard=session.permissions.read_guard(),
        sandbox=session.sandbox.for_tools(planning=session.permissions.mode == "plan"),
    )

def fill_cost(session: RunSource, usage: Usage) -> None:
    if session.model is not None:
        from atomic.core.models.cost import compute_cost

        compute_cost(session.model, usage)


def run_config(session: RunSource) -> AgentConfig:
    def take(queue: MessageQueue) -> list[QueuedMessage]:
        items = queue.poll()
        if items:
            session.queue_changed()
        return items

    async def recover_overflow(already_tried: bool) -> bool:
        if not session.auto_compaction_enabled:
            return False
        if already_tried:
            session.compaction.report_unresolved_overflow()
            return False
        return await session.compaction.compact_for("overflow", True)

    async def approve(call_id: str, name: str, args: dict[str, Any], read_only: bool) -> str | None:
        policy = session.sandbox.policy()
        return await approve_tool_call(
            session.permissions, policy.active, policy.escalation, call_id, name, args, read_only
        )

    async def after_turn() -> None:
        if session.compaction.needs_threshold_compaction():
            await session.compaction.compact_for("threshold", False)

    return AgentConfig(
        model=lambda: session.model,
        context=session.context_messages,
        build_request=lambda messages: build_request(session, messages),
        provider=session.models.provider_for,
        tools=ToolAccess(
            find=lambda name: find_tool(session, name),
            context=lambda on_update: tool_context(session, on_update),
            approve=approve,
            hook=lambda name, payload: session.hooks.emit(name, payload),
            before_tool=lambda tool: session.checkpoints.before_tool(tool),
        ),
        record=session.record_message,
        emit=session.emit,
        retry=lambda: retry_policy(session.settings, session.auto_retry_enabled),
        take_steering=lambda: take(session.steering),
        take_follow_ups=lambda: take(session.follow_ups),
        recover_overflow=recover_overflow,
        after_turn=after_turn,
        fill_cost=lambda usage: fill_cost(session, usage),
        notify_once=session.notify_once,
    )
