"""ChildHost: what the agent loop sees while it runs a subagent.

The child has its own context (its system prompt and the task's prompt), its own tools and no
queues; it shares the parent's provider, keys, settings and permission policy, so its approvals go
to the same person. Its messages go to its own session file, and its message and tool events reach
the parent's listeners marked with the `task` call's id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.agent.queues import MessageQueue
from atomic.core.events import CompactionReason, Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import ToolResultMessage
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.providers.base import Provider, StreamRequest, ToolSpec
from atomic.core.sandbox.control import SandboxControl
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


class ChildHost:
    """A LoopHost for one subagent run."""

    def __init__(self, setup: ChildSetup, store: SessionStore, emit: Callable[[Event], None]) -> None:
        self.setup = setup
        self.store = store
        self._emit = emit
        self.messages: list[Any] = []
        self.hooks = HookBus()
        self.steering = MessageQueue("all")
        self.follow_ups = MessageQueue("all")
        self.pending_tool_results: list[ToolResultMessage] | None = None

    @property
    def model(self) -> Model | None:
        return self.setup.model

    @property
    def settings(self) -> Settings:
        return self.setup.settings()

    @property
    def auto_retry_enabled(self) -> bool:
        return True

    @property
    def auto_compaction_enabled(self) -> bool:
        # A child's context is short-lived; an overflow ends it with an error the parent reads.
        return False

    @property
    def permissions(self) -> PermissionPolicy:
        return self.setup.permissions

    @property
    def sandbox(self) -> SandboxControl:
        return self.setup.sandbox

    def emit(self, event: Event) -> None:
        self._emit(event)

    def context_messages(self) -> list[Any]:
        return list(self.messages)

    def record_message(self, message: Any) -> None:
        self.store.append("message", message=message.to_wire())
        self.messages.append(message)

    async def build_request(self, messages: list[Any]) -> StreamRequest:
        setup = self.setup
        timeout_ms = self.settings.retry.provider.timeout_ms
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
            thinking_budgets=self.settings.thinking_budgets,
        )

    async def provider_for(self, model: Model) -> Provider:
        return await self.setup.provider_for(model)

    def find_tool(self, name: str) -> Tool | None:
        return self.setup.tools.get(name)

    def tool_context(self, on_update: Callable[[ToolOutput], None]) -> ToolContext:
        return self.setup.tool_context(on_update)

    async def before_tool(self, tool: Tool) -> None:
        # Nothing to wait for: the parent's `task` call (a tool that may write) waited for the
        # parent prompt's checkpoint before this child started, so that covers the child's changes.
        return None

    def queue_changed(self) -> None:
        pass

    def notify_once(self, key: str, message: str) -> None:
        self.setup.notify_once(key, message)

    def fill_cost(self, usage: Any) -> None:
        self.setup.fill_cost(usage)

    async def compact_for(self, reason: CompactionReason, will_retry: bool) -> bool:
        return False

    def needs_threshold_compaction(self) -> bool:
        return False

    def report_unresolved_overflow(self) -> None:
        pass
