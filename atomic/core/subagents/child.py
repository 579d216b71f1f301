"""ChildRun: the agent loop's config while it runs a subagent.

The child has its own context (its system prompt and the task's prompt), its own tools and no
queues; it shares the parent's provider, keys, settings and permission policy, so its approvals go
to the same person. Its messages go to its own session file, and its message and tool events reach
the parent's listeners marked with the `task` call's id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.agent.config import AgentConfig, RetryPolicy, ToolAccess
from atomic.core.events import Event
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.providers.base import Provider, StreamRequest, ToolSpec
from atomic.core.sandbox.control import SandboxControl
from atomic.core.sandbox.escalation import approve_tool_call
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings
from atomic.core.tools.base import Tool, ToolContext, ToolOutput


@dataclass(frozen=True)
class ChildSetup:
    """Everything a child takes from its parent, as values and callables."""

    model: Model
    thinking_level: str
    system_prompt: str
    tools: dict[str, Tool]
    settings: Callable[[], Settings]
    permissions: PermissionPolicy
    # The parent's sandbox: a child's commands run in the same one (its tool context carries it too).
    sandbox: SandboxControl
    api_key: str | None
    headers: dict[str, str]
    provider_for: Callable[[Model], Awaitable[Provider]]
    tool_context: Callable[[Callable[[ToolOutput], None]], ToolContext]
    fill_cost: Callable[[Any], None]
    notify_once: Callable[[str, str], None]


class ChildRun:
    """One subagent run's messages and the `AgentConfig` its loop runs on."""

    def __init__(self, setup: ChildSetup, store: SessionStore, emit: Callable[[Event], None]) -> None:
        self.setup = setup
        self.store = store
        self.messages: list[Any] = []
        self.config = AgentConfig(
            model=lambda: setup.model,
            context=lambda: list(self.messages),
            build_request=self.build_request,
            provider=setup.provider_for,
            tools=ToolAccess(
                find=setup.tools.get,
                context=setup.tool_context,
                approve=self.approve,
                # No waiting before a tool: the parent's `task` call (a tool that may write) waited for
                # the parent prompt's checkpoint before this child started, which covers the child's changes.
            ),
            record=self.record,
            emit=emit,
            retry=self.retry_policy,
            # A child's context is short-lived: no queues, and an overflow ends it with an error the
            # parent reads (no compaction).
            fill_cost=setup.fill_cost,
            notify_once=setup.notify_once,
        )

    async def approve(self, call_id: str, name: str, args: dict[str, Any], read_only: bool) -> str | None:
        policy = self.setup.sandbox.policy()
        return await approve_tool_call(
            self.setup.permissions, policy.active, policy.escalation, call_id, name, args, read_only
        )

    def retry_policy(self) -> RetryPolicy:
        retry = self.setup.settings().retry
        return RetryPolicy(
            enabled=retry.enabled,
            max_retries=retry.max_retries,
            base_delay_ms=retry.base_delay_ms,
            max_delay_ms=retry.provider.max_retry_delay_ms or 0,
        )

    def record(self, message: Any) -> None:
        self.store.append("message", message=message.to_wire())
        self.messages.append(message)

    async def build_request(self, messages: list[Any]) -> StreamRequest:
        setup = self.setup
        settings = setup.settings()
        timeout_ms = settings.retry.provider.timeout_ms
        return StreamRequest(
            model=setup.model,
            system_prompt=setup.system_prompt,
            messages=messages,
            tools=[ToolSpec(name=t.name, description=t.description, parameters=t.parameters) for t in setup.tools.values()],
            thinking_level=setup.thinking_level,
            api_key=setup.api_key,
            headers=setup.headers,
            timeout_s=timeout_ms / 1000 if timeout_ms else None,
            session_id=self.store.session_id,
            thinking_budgets=settings.thinking_budgets,
        )
