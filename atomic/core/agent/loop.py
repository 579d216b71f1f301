"""The agent loop: user message -> streamed LLM turn -> tool calls -> next turn, until the model stops.

Steering messages are delivered after a turn's tool calls finish, before the next LLM call;
follow-ups only when the agent would otherwise stop. Abort is task cancellation: the streaming
message ends with `stopReason: "aborted"`, running tools are cancelled (bash kills its process
group) and still get (error) results so the history stays valid.
"""

from __future__ import annotations

import asyncio
from typing import Any

from atomic.core.agent.assembler import MessageAssembler
from atomic.core.agent.config import AgentConfig
from atomic.core.agent.convert import IMAGES_OMITTED_NOTICE, convert_to_llm, omit_images
from atomic.core.agent.queues import QueuedMessage
from atomic.core.agent.tool_runner import ToolCallsCancelled, run_tool_calls
from atomic.core.events import (
    AgentEnd,
    AgentStart,
    AutoRetryEnd,
    AutoRetryStart,
    MessageEnd,
    MessageStart,
    TurnEnd,
    TurnStart,
)
from atomic.core.messages import AssistantMessage, ImageContent, TextContent, UserMessage
from atomic.core.providers.base import ProviderError

# Consecutive `pause_turn` continuations before the loop stops asking (a server that pauses without
# progress would otherwise loop forever).
MAX_PAUSE_CONTINUATIONS = 20

def user_message_from(item: QueuedMessage) -> UserMessage:
    if item.images:
        blocks: list[TextContent | ImageContent] = [TextContent(text=item.text), *item.images]
        return UserMessage(content=blocks)
    return UserMessage(content=item.text)


class RetryCancelled(Exception):
    pass


class AgentRun:
    """One run of the loop, from `agent_start` to `agent_end`."""

    def __init__(self, config: AgentConfig, recorded: list[Any] | None = None) -> None:
        self.config = config
        # Messages the host stored before the run started (a prompt is on disk before it is
        # acknowledged): the run announces them without storing them again.
        self._recorded = {id(message) for message in recorded or []}
        self.new_messages: list[Any] = []
        self.retry_wait: asyncio.Future[None] | None = None
        self.aborted = False
        # The last streamed message was paused by the server (Anthropic `pause_turn`).
        self.paused = False

    # -------------------------------------------------------------- helpers

    def _add(self, message: Any) -> None:
        self.config.emit(MessageStart(message=message))
        if id(message) in self._recorded:
            self._recorded.discard(id(message))
        else:
            self.config.record(message)
        self.new_messages.append(message)
        self.config.emit(MessageEnd(message=message))

    async def _stream_assistant(self) -> tuple[AssistantMessage, ProviderError | None]:
        cfg = self.config
        model = cfg.model()
        assert model is not None
        message = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        error: ProviderError | None = None
        cfg.emit(MessageStart(message=message.model_copy(deep=True)))
        assembler = MessageAssembler(message, cfg.emit, cfg.fill_cost)
        try:
            request = await cfg.build_request(convert_to_llm(cfg.context()))
            request.messages, omitted = omit_images(request.messages, model)
            if omitted:
                cfg.notify_once(f"images-omitted:{model.key}", IMAGES_OMITTED_NOTICE.format(model=model.name or model.id))
            provider = await cfg.provider(model)
            assembler.start()
            async for event in provider.stream(request):
                assembler.feed(event)
            if message.stop_reason == "pending":
                raise ProviderError("Provider stream ended without a finish", kind="transient")
        except asyncio.CancelledError:
            self.aborted = True
            assembler.fail("aborted", "Request was aborted")
        except ProviderError as exc:
            error = exc
            assembler.fail("error", exc.message, exc.kind)
        except Exception as exc:  # a provider bug must still end the message cleanly
            error = ProviderError(f"{type(exc).__name__}: {exc}", kind="fatal")
            assembler.fail("error", error.message, error.kind)
        self.paused = assembler.paused and error is None
        cfg.fill_cost(message.usage)
        cfg.record(message)
        self.new_messages.append(message)
        cfg.emit(MessageEnd(message=message))
        return message, error

    async def _wait_retry(self, delay_ms: int) -> None:
        loop = asyncio.get_running_loop()
        self.retry_wait = loop.create_future()
        waiter = self.retry_wait

        def wake() -> None:
            if not waiter.done():
                waiter.set_result(None)

        handle = loop.call_later(delay_ms / 1000, wake)
        try:
            await self.retry_wait
        finally:
            handle.cancel()
            self.retry_wait = None

    def cancel_retry(self) -> bool:
        if self.retry_wait is not None and not self.retry_wait.done():
            self.retry_wait.set_exception(RetryCancelled())
            return True
        return False

    async def _turn_with_retries(self) -> AssistantMessage:
        """Stream one assistant message, retrying transient errors and recovering from overflow once."""
        emit = self.config.emit
        attempt = 0
        overflow_tried = False
        while True:
            message, error = await self._stream_assistant()
            if error is None or self.aborted:
                if attempt:
                    emit(AutoRetryEnd(success=not self.aborted and error is None, attempt=attempt,
                                      final_error="Retry cancelled" if self.aborted else None))
                return message
            if error.kind == "overflow":
                recovered = await self.config.recover_overflow(overflow_tried)
                overflow_tried = True
                if recovered:
                    continue
            retry = self.config.retry()
            if error.kind != "transient" or not retry.enabled:
                if attempt:
                    emit(AutoRetryEnd(success=False, attempt=attempt, final_error=error.message))
                return message
            if attempt >= retry.max_retries:
                emit(AutoRetryEnd(success=False, attempt=attempt, final_error=error.message))
                return message
            attempt += 1
            delay_ms = retry.delay_ms(attempt, error.retry_after_s)
            emit(AutoRetryStart(attempt=attempt, max_attempts=retry.max_retries, delay_ms=delay_ms,
                                error_message=error.message))
            try:
                await self._wait_retry(delay_ms)
            except RetryCancelled:
                emit(AutoRetryEnd(success=False, attempt=attempt, final_error="Retry cancelled"))
                return message
            except asyncio.CancelledError:
                self.aborted = True
                emit(AutoRetryEnd(success=False, attempt=attempt, final_error="Retry cancelled"))
                return message

    # -------------------------------------------------------------- the loop

    async def run(self, pending: list[UserMessage]) -> list[Any]:
        emit = self.config.emit
        emit(AgentStart())
        try:
            await self._loop(pending)
        except asyncio.CancelledError:
            self.aborted = True
        except Exception:
            # A bug must not leave a client waiting for agent_end; the error still surfaces.
            emit(AgentEnd(messages=self.new_messages))
            raise
        emit(AgentEnd(messages=self.new_messages))
        return self.new_messages

    async def _loop(self, pending: list[UserMessage]) -> None:
        cfg = self.config
        # Messages left queued by an earlier abort are delivered first.
        pending = pending + [user_message_from(i) for i in cfg.take_steering()]
        pauses = 0
        while True:
            more_tools = True
            while more_tools or pending:
                cfg.emit(TurnStart())
                for queued in pending:
                    self._add(queued)
                pending = []
                message = await self._turn_with_retries()
                if message.stop_reason in ("error", "aborted"):
                    cfg.emit(TurnEnd(message=message, tool_results=[]))
                    return
                calls = message.tool_calls()
                results: list[Any] = []
                if calls:
                    try:
                        results = await run_tool_calls(cfg.tools, cfg.emit, calls)
                    except ToolCallsCancelled as cancelled:
                        self.aborted = True
                        results = cancelled.results
                    for result in results:
                        self._add(result)
                cfg.emit(TurnEnd(message=message, tool_results=results))
                if self.aborted:
                    return
                # A paused turn is continued by sending the conversation again, as the API asks.
                pauses = pauses + 1 if self.paused and not calls else 0
                more_tools = bool(calls) or 0 < pauses <= MAX_PAUSE_CONTINUATIONS
                if more_tools:
                    await cfg.after_turn()
                pending = [user_message_from(i) for i in cfg.take_steering()]
            follow = cfg.take_follow_ups()
            if not follow:
                return
            pending = [user_message_from(i) for i in follow]
