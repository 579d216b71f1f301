"""SubagentRunner: runs one `task` call as a child agent and reports it as the tool's result.

A child runs in this process on the parent's provider, with at most `subagents.maxConcurrent` at
once. Its transcript is its own session file (under the sessions folder's `subagents/`, with the
parent named in the header), so the work can be opened and exported later; the parent's context
holds only the task and the child's final answer. While it runs, the task's tool card shows the
child's status (current tool, tokens) and transcript through ordinary tool updates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from atomic.core.agent.loop import AgentRun
from atomic.core.events import (
    Event,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from atomic.core.messages import AssistantMessage, UserMessage
from atomic.core.session.store import SessionStore
from atomic.core.subagents.child import ChildRun, ChildSetup
from atomic.core.subagents.definitions import AgentDefinition
from atomic.core.tools.base import ToolError, ToolOutput

# The child events the parent's listeners receive (marked with the task call's id). A child's
# agent and turn boundaries stay inside: to a client they are not the session's own.
_FORWARDED = (MessageStart, MessageUpdate, MessageEnd, ToolExecutionStart, ToolExecutionUpdate, ToolExecutionEnd)
_TRANSCRIPT_LINES = 40


@dataclass
class _Progress:
    """What the task's card shows while the child works."""

    agent: str
    description: str
    tool: str | None = None
    tokens: int = 0
    lines: list[str] = field(default_factory=list)
    streaming: str = ""  # the reply the child is writing now

    _trailing: asyncio.TimerHandle | None = None

    def show(self, state: str, on_update: Callable[[ToolOutput], None]) -> None:
        """Update the card now, and once more a moment later: tool updates are throttled, and the
        last state before a quiet spell (a child waiting on its model) must not be the one dropped."""
        on_update(self.output(state))
        if self._trailing is not None:
            self._trailing.cancel()
        self._trailing = asyncio.get_running_loop().call_later(0.15, lambda: on_update(self.output(state)))

    def stop(self) -> None:
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None

    def output(self, state: str) -> ToolOutput:
        doing = f"running {self.tool}" if self.tool else state
        head = f"{doing} · {self.tokens:,} tokens"
        lines = self.lines + self.streaming.splitlines()
        body = "\n".join(lines[-_TRANSCRIPT_LINES:])
        return ToolOutput.text(head + ("\n" + body if body else ""), {"agent": self.agent, "status": state})


class SubagentRunner:
    def __init__(
        self,
        *,
        agents: list[AgentDefinition],
        setup_for: Callable[[AgentDefinition], ChildSetup],
        emit: Callable[[Event], None],
        cwd: Path,
        session_dir: Callable[[], Path | None],
        parent_file: Callable[[], Path | None],
        max_concurrent: Callable[[], int],
    ) -> None:
        self.agents = {agent.name: agent for agent in agents}
        self._setup_for = setup_for
        self._emit = emit
        self._cwd = cwd
        self._session_dir = session_dir
        self._parent_file = parent_file
        self._max_concurrent = max_concurrent
        self._slots: asyncio.Semaphore | None = None
        self._slot_count = 0

    def _semaphore(self) -> asyncio.Semaphore:
        wanted = max(1, self._max_concurrent())
        if self._slots is None or wanted != self._slot_count:
            self._slots, self._slot_count = asyncio.Semaphore(wanted), wanted
        return self._slots

    def _store(self) -> SessionStore:
        folder = self._session_dir()
        parent = self._parent_file()
        return SessionStore.create(folder / "subagents" if folder is not None else None, self._cwd,
                                   str(parent) if parent is not None else None)

    async def run(
        self, call_id: str, agent_name: str, prompt: str, description: str, on_update: Callable[[ToolOutput], None]
    ) -> ToolOutput:
        agent = self.agents.get(agent_name)
        if agent is None:
            raise ToolError(f"Unknown agent {agent_name!r}. Available agents: {', '.join(sorted(self.agents))}")
        progress = _Progress(agent.name, description)
        on_update(progress.output("waiting"))
        async with self._semaphore():
            setup = self._setup_for(agent)
            store = self._store()
            child = ChildRun(setup, store, lambda event: self._child_event(call_id, event, progress, on_update))
            run = AgentRun(child.config)
            progress.show("starting", on_update)
            try:
                await run.run([UserMessage(content=prompt)])
            finally:
                progress.stop()
        if run.aborted:
            raise asyncio.CancelledError
        return self._result(agent, description, child, store)

    def _child_event(
        self, call_id: str, event: Event, progress: _Progress, on_update: Callable[[ToolOutput], None]
    ) -> None:
        if isinstance(event, ToolExecutionStart):
            progress.tool = event.tool_name
            progress.lines.append(f"→ {event.tool_name} {_short_args(event.args)}")
        elif isinstance(event, ToolExecutionEnd):
            progress.tool = None
        elif isinstance(event, MessageUpdate) and event.assistant_message_event.type == "text_delta":
            progress.streaming += event.assistant_message_event.delta or ""
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            progress.streaming = ""
            progress.tokens += event.message.usage.total_tokens or 0
            text = event.message.text().strip()
            if text:
                progress.lines += text.splitlines()[:_TRANSCRIPT_LINES]
        if isinstance(event, _FORWARDED):
            self._emit(event.model_copy(update={"parent_tool_call_id": call_id}))
            progress.show("working", on_update)

    def _result(self, agent: AgentDefinition, description: str, child: ChildRun, store: SessionStore) -> ToolOutput:
        answers = [m for m in child.messages if isinstance(m, AssistantMessage)]
        usage = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
        cost = 0.0
        for message in answers:
            usage["input"] += message.usage.input
            usage["output"] += message.usage.output
            usage["cacheRead"] += message.usage.cache_read
            usage["cacheWrite"] += message.usage.cache_write
            cost += message.usage.cost.total
        details: dict[str, Any] = {
            "agent": agent.name,
            "description": description,
            "usage": usage,
            "cost": round(cost, 6),
            "turns": len(answers),
        }
        if store.path is not None:
            details["sessionFile"] = str(store.path)
        last = answers[-1] if answers else None
        if last is None or last.stop_reason == "error":
            reason = last.error_message if last is not None else "it did not answer"
            raise ToolError(f"Subagent {agent.name} failed: {reason}")
        text = last.text().strip() or "(the subagent finished without a final answer)"
        return ToolOutput.text(text, details)


def _short_args(args: Any) -> str:
    if not isinstance(args, dict):
        return ""
    for key in ("command", "path", "pattern", "url"):
        value = args.get(key)
        if isinstance(value, str):
            return value if len(value) <= 80 else value[:77] + "..."
    return ""
