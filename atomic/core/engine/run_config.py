"""The `AgentConfig` of a session's run: the loop's view of an `AgentSession`, as callables.

Built once per run (`AgentSession.start_run`); every callable reads the session when it is called,
so a model, setting or queue changed during the run counts from the loop's next step. `RunSource`
names the members this reads (the session has them), so this module does not import the session.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from atomic.core.agent.config import AgentConfig, RetryPolicy, ToolAccess
from atomic.core.agent.queues import MessageQueue, QueuedMessage
from atomic.core.engine.compaction_runner import CompactionRunner
from atomic.core.engine.model_selection import ModelSelection
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import Usage
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.providers.base import StreamRequest
from atomic.core.sandbox.control import SandboxControl
from atomic.core.sandbox.escalation import approve_tool_call
from atomic.core.settings import Settings
from atomic.core.tools.base import Tool, ToolContext, ToolOutput

if TYPE_CHECKING:
    from atomic.core.checkpoints.manager import Checkpoints


class RunSource(Protocol):
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
    def settings(self) -> Settings: ...
    @property
    def checkpoints(self) -> Checkpoints: ...

    def emit(self, event: Event) -> None: ...
    def context_messages(self) -> list[Any]: ...
    def record_message(self, message: Any) -> None: ...
    async def build_request(self, messages: list[Any]) -> StreamRequest: ...
    def find_tool(self, name: str) -> Tool | None: ...
    def tool_context(self, on_update: Callable[[ToolOutput], None]) -> ToolContext: ...
    def queue_changed(self) -> None: ...
    def notify_once(self, key: str, message: str) -> None: ...
    def fill_cost(self, usage: Usage) -> None: ...


def retry_policy(settings: Settings, auto_retry_enabled: bool) -> RetryPolicy:
    retry = settings.retry
    return RetryPolicy(
        enabled=auto_retry_enabled and retry.enabled,
        max_retries=retry.max_retries,
        base_delay_ms=retry.base_delay_ms,
        max_delay_ms=retry.provider.max_retry_delay_ms or 0,
    )


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
        build_request=session.build_request,
        provider=session.models.provider_for,
        tools=ToolAccess(
            find=session.find_tool,
            context=session.tool_context,
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
        fill_cost=session.fill_cost,
        notify_once=session.notify_once,
    )
