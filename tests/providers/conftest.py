"""Fixtures shared by the provider tests: a scripted SSE server and event collection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from atomic.core.model_types import Model
from atomic.core.providers.base import StreamRequest
from tests.providers.sse_server import ScriptedServer


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    scripted = ScriptedServer().start()
    yield scripted
    scripted.stop()


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
