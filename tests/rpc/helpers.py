"""Helpers shared by the RPC conformance tests."""

from __future__ import annotations

import asyncio
from typing import Any

from atomic.rpc.client import RpcClient


class RecordingClient(RpcClient):
    """An RpcClient that also keeps every stdout object (responses and events) in arrival order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lines: list[dict[str, Any]] = []

    def _dispatch(self, message: dict[str, Any]) -> None:
        self.lines.append(message)
        super()._dispatch(message)

    def index_of_response(self, request_id: str) -> int:
        return next(i for i, m in enumerate(self.lines) if m.get("type") == "response" and m.get("id") == request_id)

    def index_of_event(self, event_type: str, after: int = 0) -> int:
        return next(i for i, m in enumerate(self.lines) if i >= after and m.get("type") == event_type)

    async def wait_idle(self, timeout: float = 15.0) -> None:
        """Poll get_state until the agent has stopped streaming."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (await self.get_state())["isStreaming"]:
            assert loop.time() < deadline, "agent still streaming"
            await asyncio.sleep(0.02)


def compact_types(events: list[dict[str, Any]]) -> list[str]:
    """Event types with the (count-varying) message_update and tool_execution_update frames dropped."""
    return [e["type"] for e in events if e["type"] not in ("message_update", "tool_execution_update")]

