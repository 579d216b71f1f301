"""What one run of the agent loop is given: values and callables, nothing that knows a session.

The session builds an `AgentConfig` for each run (engine/run_config.py), a subagent builds its own
(subagents/child.py) and a test builds one from plain functions. Extension hooks arrive as the
`hook` callable, so this package imports neither the engine nor the extension layer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from atomic.core.agent.queues import QueuedMessage
from atomic.core.events import Event
from atomic.core.messages import Usage
from atomic.core.model_types import Model
from atomic.core.providers.base import Provider, StreamRequest
from atomic.core.tools.base import Tool, ToolContext, ToolOutput

# `hook(name, payload)`: the answers of every handler of an extension event (`tool_call`, `tool_result`).
Hook = Callable[[str, dict[str, Any]], Awaitable[list[Any]]]
# `approve(call_id, tool_name, args, read_only)`: None when the call may run, else why it may not.
Approve = Callable[[str, str, dict[str, Any], bool], Awaitable[str | None]]


async def no_hooks(_name: str, _payload: dict[str, Any]) -> list[Any]:
    return []


async def ready_at_once(_tool: Tool) -> None:
    return None


async def approve_all(_call_id: str, _tool_name: str, _args: dict[str, Any], _read_only: bool) -> str | None:
    return None


def nothing_queued() -> list[QueuedMessage]:
    return []


async def no_overflow_recovery(_already_tried: bool) -> bool:
    return False


async def nothing_after_turn() -> None:
    return None


def no_cost(_usage: Usage) -> None:
    return None


def no_notices(_key: str, _message: str) -> None:
    return None


@dataclass(frozen=True)
class RetryPolicy:
    """Whether and how transient provider errors are retried, read afresh at each error."""

    enabled: bool = False
    max_retries: int = 0
    base_delay_ms: int = 0
    # Cap on a server's Retry-After (0: wait as long as it asks).
    max_delay_ms: int = 0

    def delay_ms(self, attempt: int, retry_after_s: float | None) -> int:
        delay = self.base_delay_ms * (2 ** (attempt - 1))
        if retry_after_s is not None:
            requested = int(retry_after_s * 1000)
            delay = requested if not self.max_delay_ms else min(requested, self.max_delay_ms)
        return max(0, delay)


def no_retries() -> RetryPolicy:
    return RetryPolicy()


@dataclass(frozen=True)
class ToolAccess:
    """How the tool runner finds, approves and runs the tools a turn calls."""

    find: Callable[[str], Tool | None]
    context: Callable[[Callable[[ToolOutput], None]], ToolContext]
    approve: Approve = approve_all
    hook: Hook = no_hooks
    # Awaited before a tool runs (the session waits for the prompt's checkpoint of a tool that writes).
    before_tool: Callable[[Tool], Awaitable[None]] = ready_at_once


@dataclass(frozen=True)
class AgentConfig:
    """Everything an `AgentRun` reads or calls. Callables are asked each time, so a model, setting
    or queue changed during the run is seen at its next step."""

    model: Callable[[], Model | None]
    context: Callable[[], list[Any]]  # the messages the model sees, as typed messages
    build_request: Callable[[list[Any]], Awaitable[StreamRequest]]
    provider: Callable[[Model], Awaitable[Provider]]
    tools: ToolAccess
    record: Callable[[Any], None]  # store one finished message (before it is announced)
    emit: Callable[[Event], None]
    retry: Callable[[], RetryPolicy] = no_retries
    take_steering: Callable[[], list[QueuedMessage]] = nothing_queued
    take_follow_ups: Callable[[], list[QueuedMessage]] = nothing_queued
    # `recover_overflow(already_tried)`: True when the context was made smaller and the turn may retry.
    recover_overflow: Callable[[bool], Awaitable[bool]] = no_overflow_recovery
    # After a turn whose tool results go back to the model (threshold compaction).
    after_turn: Callable[[], Awaitable[None]] = nothing_after_turn
    fill_cost: Callable[[Usage], None] = no_cost
    notify_once: Callable[[str, str], None] = no_notices
