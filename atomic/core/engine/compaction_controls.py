"""Compaction in an AgentSession: manual (`compact`), on threshold, and on context overflow.

The pure compactor lives in atomic.core.compaction; this module binds it to the session model (the
planner), the session file (backup, then a durable `compaction` entry) and the events.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from atomic.core.events import (
    CompactionEnd,
    CompactionStart,
    SummarizationRetryAttemptStart,
    SummarizationRetryFinished,
    SummarizationRetryScheduled,
)

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession

OVERFLOW_UNRESOLVED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)

_RETRY_EVENTS = {
    "summarization_retry_scheduled": SummarizationRetryScheduled,
    "summarization_retry_attempt_start": SummarizationRetryAttemptStart,
    "summarization_retry_finished": SummarizationRetryFinished,
}


class CompactionFailed(Exception):
    pass


class CompactionControls:
    def _init_compaction(self: AgentSession) -> None:
        self.is_compacting = False
        self._compaction_task: asyncio.Task[Any] | None = None

    def set_auto_compaction(self: AgentSession, enabled: bool) -> None:
        self.auto_compaction_enabled = enabled

    def set_auto_retry(self: AgentSession, enabled: bool) -> None:
        self.auto_retry_enabled = enabled

    def needs_threshold_compaction(self: AgentSession) -> bool:
        if not self.auto_compaction_enabled or self.model is None:
            return False
        usage = self.context_usage()
        if not usage or usage.get("tokens") is None:
            return False
        limit = self.model.context_window - self.settings.compaction.reserve_tokens
        return usage["tokens"] > max(limit, 0)

    # -------------------------------------------------------------- the planner call

    async def _planner_complete(self: AgentSession, system: str, user: str) -> Any:
        from atomic.core.compaction.records import PlannerReply
        from atomic.core.messages import UserMessage
        from atomic.core.providers import base as pb

        model = self.model
        assert model is not None
        request = pb.StreamRequest(
            model=model,
            system_prompt=system,
            messages=[UserMessage(content=user)],
            thinking_level="off",
            api_key=self.api_key_for(model),
            headers=self.headers_for(model),
            session_id=self.store.session_id,
        )
        parts: list[str] = []
        stop = "stop"
        provider = await self.provider_for(model)
        async for event in provider.stream(request):
            if isinstance(event, pb.TextDelta):
                parts.append(event.delta)
            elif isinstance(event, pb.Done):
                stop = event.stop_reason
        return PlannerReply("".join(parts), truncated=stop == "length")

    async def _compact_now(self: AgentSession, reason: str) -> dict[str, Any]:
        from atomic.core.compaction.backup import backup_session_file
        from atomic.core.compaction.compactor import RetryPolicy, plan_and_compact
        from atomic.core.compaction.tokens import estimate_messages_tokens

        if self.model is None:
            raise CompactionFailed("No model selected to plan the compaction")
        items = self.context_items
        messages = [item.message for item in items]
        usage = self.context_usage() or {}
        tokens_before = usage.get("tokens") or estimate_messages_tokens(messages)
        settings = self.settings.compaction
        retry = self.settings.retry

        def on_event(event: dict[str, Any]) -> None:
            cls = _RETRY_EVENTS.get(event.get("type", ""))
            if cls is not None:
                self.emit(cls.model_validate(event))

        if self.hooks.has("session_before_compact") and await self.hooks.cancelled(
            "session_before_compact", {"reason": reason, "messages": messages}
        ):
            raise CompactionFailed("Compaction was cancelled by an extension")
        result = await plan_and_compact(
            messages,
            entry_ids=[item.entry_id for item in items],
            preserve_recent=settings.preserve_recent,
            compression_ratio=settings.compression_ratio,
            query=getattr(settings, "query", None),
            complete=self._planner_complete,
            tokens_before=int(tokens_before),
            # Leave room for the planner's answer within the model's window (about 3.5 chars a token).
            max_planner_chars=int(self.model.context_window * 3.5 * 0.8),
            retry=RetryPolicy(max_retries=retry.max_retries, base_delay_ms=retry.base_delay_ms),
            on_event=on_event,
            reason=reason,
        )
        backup = None
        if self.store.path is not None and self.store.path.exists():
            backup = str(backup_session_file(self.store.path))
        self.store.append(
            "compaction",
            summary=result.compacted_text,
            firstKeptEntryId=result.first_kept_entry_id,
            tokensBefore=result.tokens_before,
            details=result.details_for_entry(),
        )
        self.reload_context()
        data = result.to_wire()
        data["backupPath"] = backup
        return data

    # -------------------------------------------------------------- with events

    async def _compaction_with_events(self: AgentSession, reason: str, will_retry: bool) -> dict[str, Any]:
        self.is_compacting = True
        self.emit(CompactionStart(reason=reason))  # type: ignore[arg-type]
        try:
            data = await self._compact_now(reason)
        except asyncio.CancelledError:
            self.emit(CompactionEnd(reason=reason, result=None, aborted=True))  # type: ignore[arg-type]
            raise
        except Exception as exc:
            message = getattr(exc, "message", None) or str(exc)
            prefix = {"manual": "Compaction failed", "threshold": "Auto-compaction failed"}.get(
                reason, "Context overflow recovery failed"
            )
            self.emit(
                CompactionEnd(
                    reason=reason,  # type: ignore[arg-type]
                    result=None,
                    error_message=f"{prefix}: {message}",
                    unresolved_overflow=True if reason == "overflow" else None,
                )
            )
            raise CompactionFailed(f"{prefix}: {message}") from exc
        finally:
            self.is_compacting = False
        self.emit(CompactionEnd(reason=reason, result=data, will_retry=will_retry))  # type: ignore[arg-type]
        return data

    async def compact_for(self: AgentSession, reason: str, will_retry: bool) -> bool:
        """Automatic compaction from inside a run; True when it succeeded."""
        try:
            await self._compaction_with_events(reason, will_retry)
        except CompactionFailed:
            return False
        return True

    def report_unresolved_overflow(self: AgentSession) -> None:
        self.emit(
            CompactionEnd(reason="overflow", result=None, error_message=OVERFLOW_UNRESOLVED, unresolved_overflow=True)
        )

    async def compact(self: AgentSession) -> dict[str, Any]:
        """Manual compaction (RPC `compact`, TUI `/compact`). Raises CompactionFailed with a clear message."""
        if self.is_streaming:
            await self.abort()
        task = asyncio.ensure_future(self._compaction_with_events("manual", False))
        self._compaction_task = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.cancelled():
                raise CompactionFailed("Compaction aborted") from None
            raise
        finally:
            self._compaction_task = None

    def cancel_compaction(self: AgentSession) -> bool:
        task = self._compaction_task
        if task is not None and not task.done():
            task.cancel()
            return True
        return False

    async def wait_compaction_idle(self: AgentSession) -> None:
        task = self._compaction_task
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)
