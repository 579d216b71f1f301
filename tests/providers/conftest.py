"""Fixtures shared by the provider tests: a scripted SSE server and event collection."""

from __future__ import annotations

from typing import Any

import pytest

from atomic.core.model_types import Model
from atomic.core.providers.base import StreamRequest


def make_model(server_url: str, **overrides: Any) -> Model:
    data: dict[str, Any] = {
        "id": "test-model",
        "api": "anthropic-messages",
        "provider": "test",
        "base_url": server_url,
        "max_tokens": 64000,
    }
    data.update(overrides)
    return Model(**data)


def make_request(model: Model, messages: list[Any] | None = None, **overrides: Any) -> StreamRequest:
    from atomic.core.messages import UserMessage

    fields: dict[str, Any] = {
        "model": model,
        "system_prompt": "You are terse.",
        "messages": messages if messages is not None else [UserMessage(content="hi")],
        "api_key": "sk-test-secret-key",
        "timeout_s": 10.0,
    }
    fields.update(overrides)
    return StreamRequest(**fields)


async def collect(provider: Any, request: StreamRequest) -> list[Any]:
    return [event async for event in provider.stream(request)]


async def cancel_after_first_text(provider: Any, request: StreamRequest, server: Any) -> bool:
    """Stream until the first text delta, cancel, check CancelledError propagates; True when the server saw
    the client hang up (it keeps writing keep-alives, so it notices only if the response was closed)."""
    import asyncio

    from atomic.core.providers.base import TextDelta

    seen: list[Any] = []

    async def consume() -> None:
        async for event in provider.stream(request):
            seen.append(event)

    task = asyncio.create_task(consume())
    while not any(isinstance(e, TextDelta) for e in seen):
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return await asyncio.to_thread(server.client_hung_up.wait, 5)
