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
from atomic.core.agent.convert import IMAGES_OMITTED_NOTICE, convert_to_llm, omit_images
from atomic.core.agent.host import LoopHost
from atomic.core.agent.queues import QueuedMessage
from atomic.core.agent.tool_runner import run_tool_calls
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

    def __init__(self, host: LoopHost, recorded: list[Any] | None = None) -> None:
        self.host = host
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
        self.host.emit(MessageStart(message=message))
        if id(message) in self._recorded:
            self._recorded.discard(id(message))
        else:
            self.host.record_message(message)
        self.new_messages.append(message)
        self.host.emit(MessageEnd(message=message))

    async def _stream_assistant(self) -> tuple[AssistantMessage, ProviderError | None]:
        host = self.host
        model = host.model
        assert model is not None
        message = AssistantMessage(api=model.api, provider=model.provider, model=model.id)
        error: ProviderError | None = None
        host.emit(MessageStart(message=message.model_copy(deep=True)))
        assembler = MessageAssembler(message, host.emit, host.fill_cost)
        try:
            request = await host.build_request(convert_to_llm(host.context_messages()))
            request.messages, omitted = omit_images(request.messages, model)
            if omitted:
                host.notify_once(f"images-omitted:{model.key}", IMAGES_OMITTED_NOTICE.format(model=model.name or model.id))
            provider = await host.provider_for(model)
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
            assembler.fail("error", exc.message)
        except Exception as exc:  # a provider bug must still end the message cleanly
            error = ProviderError(f"{type(exc).__name__}: {exc}", kind="fatal")
            assembler.fail("error", error.message)
        self.paused = assembler.paused and error is None
        host.fill_cost(message.usage)
        host.record_message(message)
        self.new_messages.append(message)
        host.emit(MessageEnd(message=message))
        return message, error

    async def _retry_delay(self, error: ProviderError, attempt: int) -> int:
        settings = self.host.settings.retry
        delay_ms = settings.base_delay_ms * (2 ** (attempt - 1))
        if error.retry_after_s is not None:
            cap = settings.provider.max_retry_delay_ms or 0
            requested = int(error.retry_after_s * 1000)
            delay_ms = requested if not cap else min(requested, cap)
        return max(0, delay_ms)

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
        host = self.host
        attempt = 0
        overflow_tried = False
        while True:
            message, error = await self._stream_assistant()
            if error is None or self.aborted:
                if attempt:
                    host.emit(AutoRetryEnd(success=not self.aborted and error is None, attempt=attempt,
                                           final_error="Retry cancelled" if self.aborted else None))
                return message
            if error.kind == "overflow" and host.auto_compaction_enabled:
                if overflow_tried:
                    host.report_unresolved_overflow()
                    return message
                overflow_tried = True
                if await host.compact_for("overflow", True):
                    continue
                return message
            retry = host.settings.retry
            if error.kind != "transient" or not host.auto_retry_enabled or not retry.enabled:
                if attempt:
                    host.emit(AutoRetryEnd(success=False, attempt=attempt, final_error=error.message))
                return message
            if attempt >= retry.max_retries:
                host.emit(AutoRetryEnd(success=False, attempt=attempt, final_error=error.message))
                return message
            attempt += 1
            delay_ms = await self._retry_delay(error, attempt)
            host.emit(AutoRetryStart(attempt=attempt, max_attempts=retry.max_retries, delay_ms=delay_ms,
                                     error_message=error.message))
            try:
                await self._wait_retry(delay_ms)
            except RetryCancelled:
                host.emit(AutoRetryEnd(success=False, attempt=attempt, final_error="Retry cancelled"))
                return message
            except asyncio.CancelledError:
                self.aborted = True
                host.emit(AutoRetryEnd(success=False, attempt=attempt, final_error="Retry cancelled"))
                return message

    # -------------------------------------------------------------- the loop

    async def run(self, pending: list[UserMessage]) -> list[Any]:
        host = self.host
        host.emit(AgentStart())
        try:
            await self._loop(pending)
        except asyncio.CancelledError:
            self.aborted = True
        except Exception:
            # A bug must not leave a client waiting for agent_end; the error still surfaces.
            host.emit(AgentEnd(messages=self.new_messages))
            raise
        host.emit(AgentEnd(messages=self.new_messages))
        return self.new_messages

    async def _loop(self, pending: list[UserMessage]) -> None:
        host = self.host
        # Messages left queued by an earlier abort are delivered first.
        leftover = host.steering.poll()
        if leftover:
            host.queue_changed()
            pending = pending + [user_message_from(i) for i in leftover]
        pauses = 0
        while True:
            more_tools = True
            while more_tools or pending:
                host.emit(TurnStart())
                for queued in pending:
                    self._add(queued)
                pending = []
                message = await self._turn_with_retries()
                if message.stop_reason in ("error", "aborted"):
                    host.emit(TurnEnd(message=message, tool_results=[]))
                    return
                calls = message.tool_calls()
                results: list[Any] = []
                if calls:
                    try:
                        results = await run_tool_calls(host, calls)
                    except asyncio.CancelledError:
                        self.aborted = True
                        results = host.pending_tool_results or []
                        host.pending_tool_results = None
                    for result in results:
                        self._add(result)
                host.emit(TurnEnd(message=message, tool_results=results))
                if self.aborted:
                    return
                # A paused turn is continued by sending the conversation again, as the API asks.
                pauses = pauses + 1 if self.paused and not calls else 0
                more_tools = bool(calls) or 0 < pauses <= MAX_PAUSE_CONTINUATIONS
                if more_tools and host.needs_threshold_compaction():
                    await host.compact_for("threshold", False)
                steering = host.steering.poll()
                if steering:
                    host.queue_changed()
                    pending = [user_message_from(i) for i in steering]
            follow = host.follow_ups.poll()
            if not follow:
                return
            host.queue_changed()
            pending = [user_message_from(i) for i in follow]
