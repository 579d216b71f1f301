"""Runs a provider through the engine's MessageAssembler, the way the agent loop does, for wire tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atomic.core.agent.assembler import MessageAssembler
from atomic.core.events import MessageUpdate
from atomic.core.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall
from atomic.core.providers.base import ProviderError, StreamRequest


@dataclass
class Outcome:
    message: AssistantMessage
    updates: list[MessageUpdate] = field(default_factory=list)
    error: ProviderError | None = None

    def rebuilt(self) -> dict[int, str]:
        """Each content index's text as the streamed deltas alone build it."""
        parts: dict[int, list[str]] = {}
        for update in self.updates:
            event = update.assistant_message_event
            if event.type in ("text_delta", "thinking_delta", "toolcall_delta") and event.delta is not None:
                parts.setdefault(event.content_index or 0, []).append(event.delta)
        return {index: "".join(chunks) for index, chunks in parts.items()}

    def assert_deltas_rebuild_message(self) -> None:
        rebuilt = self.rebuilt()
        for index, block in enumerate(self.message.content):
            if isinstance(block, TextContent):
                assert rebuilt.get(index, "") == block.text
            elif isinstance(block, ThinkingContent):
                assert rebuilt.get(index, "") == block.thinking
            elif isinstance(block, ToolCall):
                import json

                streamed = rebuilt.get(index, "")
                assert (json.loads(streamed) if streamed.strip() else {}) == block.arguments


async def assemble(provider: Any, request: StreamRequest) -> Outcome:
    model = request.model
    message = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
    outcome = Outcome(message)
    assembler = MessageAssembler(message, outcome.updates.append, lambda _usage: None)
    assembler.start()
    try:
        async for event in provider.stream(request):
            assembler.feed(event)
    except ProviderError as exc:
        outcome.error = exc
        assembler.fail("error", exc.message)
    return outcome
