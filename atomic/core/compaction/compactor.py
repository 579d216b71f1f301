"""Plan and apply one verbatim line compaction (pure: no session or engine state).

The engine passes the active context messages, their entry ids and a `complete(system, user)`
callable bound to the planner model; it gets back a CompactionResult to persist and emit.

Oversized planner input: when the numbered prompt would exceed `max_planner_chars` (or the
provider reports a context overflow), the OLDEST lines of the region are left out of the planner
prompt. Those trimmed lines are treated as deleted: they fold into the first `(filtered N lines)`
marker, except protected lines (keepContext blocks, blank separators), which are kept as always.
This keeps every invariant of the result (kept lines verbatim and in order, marker counts equal
to removed original lines) while sacrificing only the history that is furthest from the present.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from atomic.core.compaction.context import compaction_summary_to_user_text
from atomic.core.compaction.errors import CompactionError
from atomic.core.compaction.normalize import LineRange, normalize_ranges
from atomic.core.compaction.prompt import DEFAULT_QUERY, PROMPT_VERSION, build_planner_prompt
from atomic.core.compaction.reconstruct import reconstruct
from atomic.core.compaction.records import PlannerReply, parse_deletion_records
from atomic.core.compaction.serialize import Transcript, is_context_visible
from atomic.core.compaction.tokens import estimate_messages_tokens, estimate_text_tokens
from atomic.core.messages import UserMessage, user_text
from atomic.core.providers.base import ProviderError

Complete = Callable[[str, str], Awaitable[str | PlannerReply]]
EventSink = Callable[[dict[str, Any]], None]

STRATEGY = "verbatim-lines"
RUNG_PLANNED = "planned"
# After this many provider overflow errors (each trimming another quarter) the planner gives up.
MAX_OVERFLOW_TRIMS = 3
# A pasted wall of text as the "latest request" would swamp the prompt; the focus needs little.
DEFAULT_QUERY_MAX_CHARS = 2000


@dataclass(frozen=True)
class RetryPolicy:
    """Transient-error retries: delay doubles from `base_delay_ms` (attempt 1 waits the base)."""

    max_retries: int = 3
    base_delay_ms: int = 2000

    def delay_ms(self, attempt: int) -> int:
        return self.base_delay_ms * 2 ** (attempt - 1)


@dataclass(frozen=True)
class CompactionStats:
    lines_before: int
    lines_deleted: int
    lines_kept: int
    range_count: int
    tokens_before: int
    tokens_after: int
    percent_reduction: int

    def to_wire(self) -> dict[str, int]:
        return {
            "linesBefore": self.lines_before,
            "linesDeleted": self.lines_deleted,
            "linesKept": self.lines_kept,
            "rangeCount": self.range_count,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "percentReduction": self.percent_reduction,
        }


@dataclass
class CompactionResult:
    compacted_text: str
    first_kept_entry_id: str | None
    tokens_before: int
    compression_ratio: float
    preserve_recent: int
    query: str
    stats: CompactionStats
    prompt_version: int = PROMPT_VERSION
    rung: str = RUNG_PLANNED
    # The messages that stay in context after the boundary, oldest first (the engine's tail).
    kept_messages: list[Any] = field(default_factory=list)
    # How many leading messages the compacted text replaces.
    compacted_message_count: int = 0
    # Line spans (1-based, of the serialized region) that became markers.
    deleted_ranges: list[LineRange] = field(default_factory=list)
    # Oldest region lines left out of the planner prompt (and deleted) to make it fit.
    trimmed_lines: int = 0

    def parameters(self) -> dict[str, Any]:
        return {
            "compression_ratio": self.compression_ratio,
            "preserve_recent": self.preserve_recent,
            "query": self.query,
        }

    def to_wire(self) -> dict[str, Any]:
        """The `compact` response data / `compaction_end.result` (the engine adds backupPath)."""
        return {
            "compactedText": self.compacted_text,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
            "promptVersion": self.prompt_version,
            "parameters": self.parameters(),
            "rung": self.rung,
            "stats": self.stats.to_wire(),
        }

    def details_for_entry(self) -> dict[str, Any]:
        """`details` of the durable `compaction` session entry."""
        return {
            "strategy": STRATEGY,
            "promptVersion": self.prompt_version,
            "rung": self.rung,
            "parameters": self.parameters(),
            "stats": self.stats.to_wire(),
        }


def tail_start_index(messages: Sequence[Any], preserve_recent: int) -> int:
    """Index of the first message kept after the boundary: exactly the newest `preserve_recent`
    context-visible messages stay (invisible ones among them stay too, uncounted)."""
    if preserve_recent <= 0:
        return len(messages)
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if is_context_visible(messages[index]):
            seen += 1
            if seen == preserve_recent:
                return index
    return 0


def latest_user_request(messages: Sequence[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            text = user_text(message).strip()
            if text:
                return text if len(text) <= DEFAULT_QUERY_MAX_CHARS else text[:DEFAULT_QUERY_MAX_CHARS] + "…"
    return DEFAULT_QUERY


def _emit(on_event: EventSink | None, event: dict[str, Any]) -> None:
    if on_event is not None:
        on_event(event)


async def call_planner(
    complete: Complete,
    system: str,
    user: str,
    *,
    retry: RetryPolicy,
    on_event: EventSink | None,
    reason: str,
) -> PlannerReply:
    """One planner call, retried on transient provider errors with the spec's retry events.

    Non-transient errors, and the last transient one, propagate unchanged (with their `kind`).
    """
    attempt = 0
    try:
        while True:
            try:
                answer = await complete(system, user)
                return answer if isinstance(answer, PlannerReply) else PlannerReply(str(answer))
            except Exception as error:
                if not isinstance(error, ProviderError) or error.kind != "transient" or attempt >= retry.max_retries:
                    raise
                attempt += 1
                delay_ms = retry.delay_ms(attempt)
                retry_after_s = error.retry_after_s
                if retry_after_s is not None and retry_after_s * 1000 > delay_ms:
                    delay_ms = int(retry_after_s * 1000)
                _emit(
                    on_event,
                    {
                        "type": "summarization_retry_scheduled",
                        "attempt": attempt,
                        "maxAttempts": retry.max_retries,
                        "delayMs": delay_ms,
                        "errorMessage": error.message or str(error),
                    },
                )
                await asyncio.sleep(delay_ms / 1000)
                _emit(
                    on_event,
                    {"type": "summarization_retry_attempt_start", "source": "compaction", "reason": reason},
                )
    finally:
        if attempt > 0:
            _emit(on_event, {"type": "summarization_retry_finished"})


def fit_planner_prompt(
    transcript: Transcript, first_line: int, *, compression_ratio: float, query: str, max_chars: int | None
) -> tuple[int, Transcript, str, str]:
    """Advance `first_line` until system + user prompt fit in `max_chars`.

    Returns (first_line, view, system, user); the view is renumbered from 1.
    """
    while True:
        view = transcript.view_from(first_line)
        system, user = build_planner_prompt(view, compression_ratio=compression_ratio, query=query)
        size = len(system) + len(user)
        if max_chars is None or size <= max_chars:
            return first_line, view, system, user
        excess = size - max_chars
        dropped = 0
        number = 1
        while first_line <= transcript.total and dropped < excess:
            # Each numbered line costs "N→" + its text + a newline.
            dropped += len(str(number)) + 1 + len(transcript.lines[first_line - 1]) + 1
            first_line += 1
            number += 1
        if first_line > transcript.total:
            raise CompactionError(
                f"Compaction planner prompt cannot fit in {max_chars} characters, even after trimming "
                "the oldest history"
            )


async def plan_and_compact(
    messages: Sequence[Any],
    *,
    entry_ids: Sequence[str | None],
    preserve_recent: int = 2,
    compression_ratio: float = 0.5,
    query: str | None = None,
    complete: Complete,
    tokens_before: int,
    max_planner_chars: int | None = None,
    retry: RetryPolicy | None = None,
    on_event: EventSink | None = None,
    reason: str = "manual",
) -> CompactionResult:
    """Compact everything but the newest `preserve_recent` context-visible messages.

    Raises CompactionError when there is nothing to compact or the planner's answer is unusable;
    provider errors propagate (after transient retries); cancellation propagates.
    """
    if len(entry_ids) != len(messages):
        raise ValueError("entry_ids must have one entry per message")
    if not 0 < compression_ratio <= 1:
        raise CompactionError(f"compression_ratio must be in (0, 1], got {compression_ratio}")
    if preserve_recent < 0:
        raise CompactionError(f"preserve_recent must be >= 0, got {preserve_recent}")
    retry = retry or RetryPolicy()

    tail_start = tail_start_index(messages, preserve_recent)
    region = [m for m in messages[:tail_start] if is_context_visible(m)]
    tail = list(messages[tail_start:])
    transcript = Transcript.from_messages(region)
    if not region or not transcript.text.strip():
        raise CompactionError("Nothing to compact: no messages before the preserved recent ones")
    first_kept_entry_id = next((e for e in entry_ids[tail_start:] if e is not None), None)
    focus = query.strip() if query and query.strip() else latest_user_request(messages)

    first_line = 1
    overflow_trims = 0
    while True:
        first_line, view, system, user = fit_planner_prompt(
            transcript,
            first_line,
            compression_ratio=compression_ratio,
            query=focus,
            max_chars=max_planner_chars,
        )
        try:
            reply = await call_planner(complete, system, user, retry=retry, on_event=on_event, reason=reason)
            break
        except Exception as error:
            if not isinstance(error, ProviderError) or error.kind != "overflow":
                raise
            remaining = transcript.total - first_line + 1
            if overflow_trims >= MAX_OVERFLOW_TRIMS or remaining <= 1:
                raise CompactionError(
                    f"Compaction planner input still too large after trimming old history: {error}"
                ) from error
            overflow_trims += 1
            first_line += max(1, remaining // 4)

    records = parse_deletion_records(reply.text, truncated=reply.truncated)
    planned = normalize_ranges(records, view.total, view.protected)
    if not planned:
        raise CompactionError(
            "Compaction planner returned no usable deletion record: every record was out of range "
            "or covered only protected lines"
        )
    shift = first_line - 1
    ranges = [(start + shift, end + shift) for start, end in planned]
    if shift:
        ranges.append((1, shift))
    final_ranges = normalize_ranges(ranges, transcript.total, transcript.protected)
    rebuilt = reconstruct(
        transcript.lines, final_ranges, prior_markers=transcript.prior_markers, protected=transcript.protected
    )

    tokens_after = estimate_text_tokens(
        compaction_summary_to_user_text(rebuilt.text)
    ) + estimate_messages_tokens(tail)
    percent = round(100 * (tokens_before - tokens_after) / tokens_before) if tokens_before > 0 else 0
    stats = CompactionStats(
        lines_before=rebuilt.stats.lines_before,
        lines_deleted=rebuilt.stats.lines_deleted,
        lines_kept=rebuilt.stats.lines_kept,
        range_count=rebuilt.stats.range_count,
        tokens_before=tokens_before,
        tokens_after=tokens_after,
        percent_reduction=percent,
    )
    return CompactionResult(
        compacted_text=rebuilt.text,
        first_kept_entry_id=first_kept_entry_id,
        tokens_before=tokens_before,
        compression_ratio=compression_ratio,
        preserve_recent=preserve_recent,
        query=focus,
        stats=stats,
        kept_messages=tail,
        compacted_message_count=tail_start,
        deleted_ranges=rebuilt.ranges,
        trimmed_lines=shift,
    )
