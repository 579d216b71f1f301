"""The agent loop on its own: an `AgentRun` built from plain functions and a scripted stream, with
no session behind it (the loop is a pipeline of what its config hands it)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from atomic.core.agent.config import AgentConfig, RetryPolicy, ToolAccess
from atomic.core.agent.loop import AgentRun
from atomic.core.agent.queues import QueuedMessage
from atomic.core.events import Event
from atomic.core.messages import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from atomic.core.model_types import Model
from atomic.core.providers.base import Provider, StreamRequest
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.tools.base import Tool, ToolContext, ToolOutput

MODEL = Model(id="m", name="M", api="scripted", provider="scripted", context_window=1000, max_tokens=100)


class Shout(Tool):
    name = "shout"
    read_only = True

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        return ToolOutput.text(str(args["text"]).upper())


class Hang(Tool):
    name = "hang"
    read_only = True

    def __init__(self) -> None:
        self.started = asyncio.Event()

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        self.started.set()
        await asyncio.sleep(3600)
        return ToolOutput.text("never")


class Pipeline:
    """The loop's world as plain lists: what it stored, what it said, what is queued."""

    def __init__(self, script: list[dict[str, Any]], tools: list[Tool], **overrides: Any) -> None:
        self.provider = ScriptedProvider(script)
        self.tools = {t.name: t for t in tools}
        self.stored: list[Any] = []
        self.events: list[Event] = []
        self.requests: list[StreamRequest] = []
        self.steering: list[QueuedMessage] = []
        self.follow_ups: list[QueuedMessage] = []
        self.config = AgentConfig(
            model=lambda: MODEL,
            context=lambda: list(self.stored),
            build_request=self.build_request,
            provider=self.provider_for,
            tools=ToolAccess(find=self.tools.get, context=lambda on_update: ToolContext(cwd=Path.cwd(), on_update=on_update)),
            record=self.stored.append,
            emit=self.events.append,
            take_steering=lambda: self._take(self.steering),
            take_follow_ups=lambda: self._take(self.follow_ups),
            **overrides,
        )

    @staticmethod
    def _take(queue: list[QueuedMessage]) -> list[QueuedMessage]:
        items = list(queue)
        queue.clear()
        return items

    async def build_request(self, messages: list[Any]) -> StreamRequest:
        request = StreamRequest(model=MODEL, system_prompt="", messages=messages, tools=[])
        self.requests.append(request)
        return request

    async def provider_for(self, model: Model) -> Provider:
        assert model is MODEL
        return self.provider

    def types(self) -> list[str]:
        return [e.to_wire()["type"] for e in self.events if e.to_wire()["type"] != "message_update"]


async def test_a_tool_call_then_an_answer_is_stored_in_order() -> None:
    world = Pipeline(
        [{"toolCalls": [{"name": "shout", "arguments": {"text": "hi"}, "id": "c1"}]}, {"text": "done"}], [Shout()]
    )
    messages = await AgentRun(world.config).run([UserMessage(content="go")])
    assert [type(m).__name__ for m in world.stored] == [
        "UserMessage", "AssistantMessage", "ToolResultMessage", "AssistantMessage",
    ]
    assert messages == world.stored
    result = world.stored[2]
    assert isinstance(result, ToolResultMessage) and result.content == [TextContent(text="HI")]
    assert world.types()[0] == "agent_start" and world.types()[-1] == "agent_end"
    assert world.types().count("turn_start") == 2
    assert "tool_execution_end" in world.types()


async def test_steering_is_taken_after_the_tools_and_follow_ups_when_the_model_stops() -> None:
    world = Pipeline(
        [{"toolCalls": [{"name": "shout", "arguments": {"text": "a"}, "id": "c1"}]}, {"text": "one"}, {"text": "two"}],
        [Shout()],
    )
    world.follow_ups.append(QueuedMessage(text="later"))
    original_append = world.stored.append

    def record(message: Any) -> None:
        if isinstance(message, ToolResultMessage):
            world.steering.append(QueuedMessage(text="now"))
        original_append(message)

    await AgentRun(replace(world.config, record=record)).run([UserMessage(content="go")])
    users = [m.content for m in world.stored if isinstance(m, UserMessage)]
    assert users == ["go", "now", "later"]
    assert [m.text() for m in world.stored if isinstance(m, AssistantMessage)][1:] == ["one", "two"]


async def test_a_cancelled_tool_still_gets_its_result_from_the_tool_runner() -> None:
    hang = Hang()
    world = Pipeline([{"toolCalls": [{"name": "hang", "arguments": {}, "id": "c1"}]}], [hang])
    run = AgentRun(world.config)
    task = asyncio.ensure_future(run.run([UserMessage(content="go")]))
    await hang.started.wait()
    task.cancel()
    await task
    assert run.aborted
    [result] = [m for m in world.stored if isinstance(m, ToolResultMessage)]
    assert result.is_error and result.content == [TextContent(text="Operation aborted")]
    assert world.types()[-1] == "agent_end"


async def test_a_transient_error_is_retried_by_the_policy_it_is_given() -> None:
    policy = RetryPolicy(enabled=True, max_retries=2, base_delay_ms=0)
    world = Pipeline([{"error": "529 overloaded", "kind": "transient"}, {"text": "fine"}], [], retry=lambda: policy)
    await AgentRun(world.config).run([UserMessage(content="go")])
    assert [m.text() for m in world.stored if isinstance(m, AssistantMessage)][-1] == "fine"
    retries = [e.to_wire() for e in world.events if e.to_wire()["type"].startswith("auto_retry")]
    assert [r["type"] for r in retries] == ["auto_retry_start", "auto_retry_end"] and retries[1]["success"] is True


async def test_without_a_retry_policy_an_error_ends_the_run() -> None:
    world = Pipeline([{"error": "529 overloaded", "kind": "transient"}, {"text": "unused"}], [])
    await AgentRun(world.config).run([UserMessage(content="go")])
    [answer] = [m for m in world.stored if isinstance(m, AssistantMessage)]
    assert answer.stop_reason == "error" and len(world.requests) == 1


async def test_an_overflow_is_retried_once_after_recovery_says_it_made_room() -> None:
    asked: list[bool] = []

    async def recover(already_tried: bool) -> bool:
        asked.append(already_tried)
        return not already_tried

    world = Pipeline(
        [{"error": "prompt is too long", "kind": "overflow"}, {"error": "prompt is too long", "kind": "overflow"}],
        [],
        recover_overflow=recover,
    )
    await AgentRun(world.config).run([UserMessage(content="go")])
    assert asked == [False, True] and len(world.requests) == 2
