"""`initialize` answered by the stdin pump before the SDK loads: the same answer, and the agent still learns the client."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp.schema import InitializeResponse

from atomic.acp.handshake import initialize_result
from atomic.acp.server import EarlyHandshake

LOGIN = [{"id": "atomic-login", "name": "Log in", "type": "terminal", "args": [], "description": "d"}]


def test_the_early_answer_is_a_valid_initialize_response_of_the_sdk() -> None:
    raw = initialize_result(1, LOGIN)
    parsed = InitializeResponse.model_validate(raw)
    # What the SDK would write for the agent's own handler (it dumps without unset fields).
    assert parsed.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True) == raw
    assert initialize_result(7, [])["protocolVersion"] == 1 and initialize_result("x", [])["protocolVersion"] == 1


async def test_the_pump_answers_initialize_and_hands_the_capabilities_to_the_agent_later() -> None:
    methods: asyncio.Future[list[dict[str, Any]]] = asyncio.get_running_loop().create_future()
    methods.set_result(LOGIN)
    handshake = EarlyHandshake(methods)
    line = json.dumps({"jsonrpc": "2.0", "id": 3, "method": "initialize",
                       "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}})
    answer = await handshake.answer(line.encode())
    assert answer is not None and answer["id"] == 3 and answer["result"] == initialize_result(1, LOGIN)
    prompt = json.dumps({"jsonrpc": "2.0", "id": 4, "method": "session/prompt",
                         "params": {"prompt": [{"type": "text", "text": '"initialize"'}]}})
    assert await handshake.answer(prompt.encode()) is None
    seen: list[dict[str, Any]] = []
    handshake.attach(seen.append)
    assert seen == [{"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}]
