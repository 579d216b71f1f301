"""Compaction of a session: manual (`compact`), on threshold, and on context overflow.

The pure compactor lives in atomic.core.compaction; the runner binds it to the session's model (the
planner), the session file (backup, then a durable `compaction` entry) and the events. It owns the
`is_compacting` flag and the manual compaction's task; everything else it reads from its host.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from atomic.core.engine.errors import CompactionFailed
from atomic.core.events import (
    CompactionEnd,
    CompactionReason,
    CompactionStart,
    Event,
    SummarizationRetryAttemptStart,
    SummarizationRetryFinished,
    SummarizationRetryScheduled,
)
from atomic.core.extensions.hooks import HookBus
from atomic.core.model_types import Model
from atomic.core.providers.base import Provider
from atomic.core.session.context import ContextItem
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings

if TYPE_CHECKING:
    from atomic.core.compaction.records import PlannerReply
    from atomic.core.records import CompactionOutcome, ContextUsage

OVERFLOW_UNRESOLVED = (
    "Context overflow recovery failed after one compact-and-retry attempt. "
    "Try reducing context or switching to a larger-context model."
)

_RETRY_EVENTS: dict[str, type[Event]] = {
    "summarization_retry_scheduled": SummarizationRetryScheduled,
    "summarization_retry_attempt_start": SummarizationRetryAttemptStart,
    "summarization_retry_finished": SummarizationRetryFinished,
}

_FAILURE_PREFIX: dict[str, str] = {"manual": "Compaction failed", "threshold": "Auto-compaction failed"}


class PlannerModels(Protocol):
    """Where the planner's request gets its key and its provider (the session's model selection)."""

    async def request_credentials(self, model: Model, messages: list[Any]) -> tuple[str | None, dict[str, str]]: ...
    async def provider_for(self, model: Model) -> Provider: ...


class CompactionHost(Protocol):
    """What compaction reads from the session it compacts."""

    @property
    def model(self) -> Model | None: ...
    @property
    def models(self) -> PlannerModels: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def hooks(self) -> HookBus: ...
    @property
    def context_items(self) -> list[ContextItem]: ...
    @property
    def auto_compaction_enabled(self) -> bool: ...

    def emit(self, event: Event) -> None: ...
    def context_usage(self) -> ContextUsage | None: ...
    def reload_context(self) -> None: ...


class CompactionRunner:
    def __init__(self, host: CompactionHost) -> None:
        self._host = host
        self.is_compacting = False
        self._task: asyncio.Task[dict[str, Any]] | None = None

    def needs_threshold_compaction(self) -> bool:
        host = self._host
        model = host.model
        if not host.auto_compaction_enabled or model is None:
            return False
        usage = host.context_usage()
        if usage is None or usage.tokens is None:
            return False
        limit = model.context_window - host.settings.compaction.reserve_tokens
        return usage.tokens > max(limit, 0)

    # -------------------------------------------------------------- the planner call

    async def _planner_complete(self, system: str, user: str) -> PlannerReply:
        from atomic.core.compaction.records import PlannerReply
        from atomic.core.messages import UserMessage
        from atomic.core.providers import base as pb

        host = self._host
        model = host.model
        assert model is not None
        messages: list[Any] = [UserMessage(content=user)]
        # A subscription login's token is refreshed here too when it is due (engine/login_credentials.py).
        api_key, headers = await host.models.request_credentials(model, messages)
        request = pb.StreamRequest(
            model=model,
            system_prompt=system,
            messages=messages,
            thinking_level="off",
            api_key=api_key,
            headers=headers,
            session_id=host.store.session_id,
        )
        parts: list[str] = []
        stop = "stop"
        provider = await host.models.provider_for(model)
        async for event in provider.stream(request):
            if isinstance(event, pb.TextDelta):
                parts.append(event.delta)
            elif isinstance(event, pb.Done):
                stop = event.stop_reason
        return PlannerReply("".join(parts), truncated=stop == "length")

    async def _compact_now(self, reason: CompactionReason) -> dict[str, Any]:
        from atomic.core.compaction.backup import backup_session_file
        from atomic.core.compaction.compactor import RetryPolicy, plan_and_compact
        from atomic.core.compaction.tokens import estimate_messages_tokens

        host = self._host
        model = host.model
        if model is None:
            raise CompactionFailed("No model selected to plan the compaction")
        items = host.context_items
        messages = [item.message for item in items]
        usage = host.context_usage()
        tokens_before = (usage.tokens if usage is not None else None) or estimate_messages_tokens(messages)
        settings = host.settings.compaction
        retry = host.settings.retry

        def on_event(event: dict[str, Any]) -> None:
            cls = _RETRY_EVENTS.get(event.get("type", ""))
            if cls is not None:
                host.emit(cls.model_validate(event))

        if host.hooks.has("session_before_compact") and await host.hooks.cancelled(
            "session_before_compact", {"reason": reason, "messages": messages}
        ):
            raise CompactionFailed("Compaction was cancelled by an extension")
        result = await plan_and_compact(
            messages,
            entry_ids=[item.entry_id for item in items],
            preserve_recent=settings.preserve_recent,
            compression_ratio=settings.compression_ratio,
            complete=self._planner_complete,
            tokens_before=int(tokens_before),
            # Leave room for the planner's answer within the model's window (about 3.5 chars a token).
            max_planner_chars=int(model.context_window * 3.5 * 0.8),
            retry=RetryPolicy(max_retries=retry.max_retries, base_delay_ms=retry.base_delay_ms),
            on_event=on_event,
            reason=reason,
        )
        store = host.store
        backup = None
        if store.path is not None and store.path.exists():
            backup = str(backup_session_file(store.path))
        store.append(
            "compaction",
            summary=result.compacted_text,
            firstKeptEntryId=result.first_kept_entry_id,
            tokensBefore=result.tokens_before,
            details=result.details_for_entry(),
        )
        host.reload_context()
        data = result.to_wire()
        data["backupPath"] = backup
        return data

    # -------------------------------------------------------------- with events

    async def _with_events(self, reason: CompactionReason, will_retry: bool) -> dict[str, Any]:
        emit = self._host.emit
        self.is_compacting = True
        emit(CompactionStart(reason=reason))
        try:
            data = await self._compact_now(reason)
        except asyncio.CancelledError:
            emit(CompactionEnd(reason=reason, result=None, aborted=True))
            raise
        except Exception as exc:
            # foreign: exceptions from outside (cloud libraries, httpx) may carry their text in `message`; str() of them adds the status line.
            message = getattr(exc, "message", None) or str(exc)
            prefix = _FAILURE_PREFIX.get(reason, "Context overflow recovery failed")
            emit(
                CompactionEnd(
                    reason=reason,
                    result=None,
                    error_message=f"{prefix}: {message}",
                    unresolved_overflow=True if reason == "overflow" else None,
                )
            )
            raise CompactionFailed(f"{prefix}: {message}") from exc
        finally:
            self.is_compacting = False
        emit(CompactionEnd(reason=reason, result=data, will_retry=will_retry))
        return data

    async def compact_for(self, reason: CompactionReason, will_retry: bool) -> bool:
        """Automatic compaction from inside a run; True when it succeeded."""
        try:
            await self._with_events(reason, will_retry)
        except CompactionFailed:
            return False
        return True

    def report_unresolved_overflow(self) -> None:
        self._host.emit(
            CompactionEnd(reason="overflow", result=None, error_message=OVERFLOW_UNRESOLVED, unresolved_overflow=True)
        )

    async def compact(self) -> CompactionOutcome:
        """Manual compaction, cancellable with `cancel`. Raises CompactionFailed with a clear message."""
        from atomic.core.records import CompactionOutcome

        task = asyncio.ensure_future(self._with_events("manual", False))
        self._task = task
        try:
            data = await asyncio.shield(task)
            return CompactionOutcome(
                summary=data.get("compactedText", ""),
                first_kept_entry_id=data.get("firstKeptEntryId"),
                tokens_before=int(data.get("tokensBefore") or 0),
                backup_path=data.get("backupPath"),
                result=data,
            )
        except asyncio.CancelledError:
            if task.cancelled():
                raise CompactionFailed("Compaction aborted") from None
            raise
        finally:
            self._task = None

    def cancel(self) -> bool:
        task = self._task
        if task is not None and not task.done():
            task.cancel()
            return True
        return False

    async def wait_idle(self) -> None:
        task = self._task
        if task is not None and not task.done():
            await asyncio.gather(task, return_exceptions=True)
