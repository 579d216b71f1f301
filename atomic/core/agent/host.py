"""What the agent loop needs from the session that hosts it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from atomic.core.agent.queues import MessageQueue
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import ToolResultMessage
from atomic.core.model_types import Model
from atomic.core.permissions import PermissionPolicy
from atomic.core.providers.base import Provider, StreamRequest
from atomic.core.settings import Settings
from atomic.core.tools.base import Tool, ToolContext, ToolOutput


class LoopHost(Protocol):
    hooks: HookBus
    steering: MessageQueue
    follow_ups: MessageQueue
    model: Model | None
    settings: Settings
    auto_retry_enabled: bool
    auto_compaction_enabled: bool
    pending_tool_results: list[ToolResultMessage] | None
    permissions: PermissionPolicy

    def emit(self, event: Event) -> None: ...
    def context_messages(self) -> list[Any]: ...
    def record_message(self, message: Any) -> None: ...
    async def build_request(self, messages: list[Any]) -> StreamRequest: ...
    async def provider_for(self, model: Model) -> Provider: ...
    def find_tool(self, name: str) -> Tool | None: ...
    def tool_context(self, on_update: Callable[[ToolOutput], None]) -> ToolContext: ...
    def queue_changed(self) -> None: ...
    def fill_cost(self, usage: Any) -> None: ...
    async def compact_for(self, reason: str, will_retry: bool) -> bool: ...
    def needs_threshold_compaction(self) -> bool: ...
    def report_unresolved_overflow(self) -> None: ...
