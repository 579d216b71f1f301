"""Coalescing streamed text and thought deltas into fewer `session/update` chunks.

Providers stream many small deltas (one character each, at worst), and some clients re-render
their whole Markdown view on every chunk (Toad). Deltas of one kind are joined and sent at most
once per `interval_s`; the first delta after a quiet spell goes out at once, so the first chunk is
never late. A change of kind, or any other update, sends what is pending first, so the order and
the text stay exactly the reply's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanContentUpdate,
    AgentPlanRemovedUpdate,
    AgentPlanUpdate,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionInfoUpdate,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)

# What one `session/update` notification carries (the client connection's `session_update` accepts these).
SessionUpdate = (
    UserMessageChunk | AgentMessageChunk | AgentThoughtChunk | ToolCallStart | ToolCallProgress | AgentPlanUpdate
    | AgentPlanContentUpdate | AgentPlanRemovedUpdate | AvailableCommandsUpdate | CurrentModeUpdate
    | ConfigOptionUpdate | SessionInfoUpdate | UsageUpdate
)
SendUpdate = Callable[[SessionUpdate], None]

ChunkKind = Literal["text", "thought"]
# One chunk per 25 ms at most: smooth for the eye, and a long answer stays a few hundred updates.
CHUNK_INTERVAL_S = 0.025


class ChunkCoalescer:
    def __init__(self, emit: SendUpdate, interval_s: float = CHUNK_INTERVAL_S) -> None:
        self._emit = emit
        self._interval_s = interval_s
        self._kind: ChunkKind | None = None
        self._parts: list[str] = []
        self._last_sent = -float("inf")
        self._timer: asyncio.TimerHandle | None = None

    def add(self, kind: ChunkKind, text: str) -> None:
        if not text:
            return
        if self._kind is not None and kind != self._kind:
            self.flush()
        self._kind = kind
        self._parts.append(text)
        if self._timer is not None:
            return
        wait = self._last_sent + self._interval_s - time.monotonic()
        if wait <= 0:
            self.flush()
        else:
            self._timer = asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        """Send what is pending now (before any other update, and before a prompt is answered)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._parts:
            return
        text = "".join(self._parts)
        kind = self._kind
        self._parts = []
        self._kind = None
        self._last_sent = time.monotonic()
        if kind == "text":
            self._emit(helpers.update_agent_message_text(text))
        else:
            self._emit(helpers.update_agent_thought_text(text))

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
