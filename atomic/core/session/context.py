"""What the model sees: the active branch of a session, with compaction applied."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atomic.core.messages import BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, parse_message
from atomic.core.session.store import EntryRecord, SessionStore

VERBATIM_STRATEGY = "verbatim-lines"


@dataclass
class ContextItem:
    entry_id: str | None
    message: Any


@dataclass
class SessionContext:
    items: list[ContextItem] = field(default_factory=list)
    provider: str | None = None
    model_id: str | None = None
    thinking_level: str | None = None
    # True right after a compaction until a new assistant usage arrives (contextUsage is null then).
    compacted_since_usage: bool = False

    @property
    def messages(self) -> list[Any]:
        return [item.message for item in self.items]


def _is_verbatim_compaction(record: EntryRecord) -> bool:
    details = record.data.get("details") or {}
    return record.type == "compaction" and isinstance(details, dict) and details.get("strategy") == VERBATIM_STRATEGY


def _int_or_zero(value: Any) -> int:
    # A hand-edited or foreign file may hold anything here; the count is only shown, never trusted.
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _message_of(record: EntryRecord) -> Any | None:
    data = record.data
    if record.type == "message":
        try:
            return parse_message(data["message"])
        except Exception:
            return None
    if record.type == "branch_summary":
        # pi writes these when /tree leaves a branch; the model reads them as pi's framed user text.
        return BranchSummaryMessage(
            summary=str(data.get("summary", "")), from_id=str(data.get("fromId") or "root")
        )
    if record.type == "custom_message":
        return CustomMessage(
            custom_type=data.get("customType", "custom"),
            content=data.get("content", ""),
            display=data.get("display", True),
            details=data.get("details"),
        )
    return None


def build_context(store: SessionStore, leaf_id: str | None = None) -> SessionContext:
    path = store.path_to(leaf_id)
    ctx = SessionContext()
    compaction_index = None
    for index, record in enumerate(path):
        if record.type == "model_change":
            ctx.provider = record.data.get("provider")
            ctx.model_id = record.data.get("modelId")
        elif record.type == "thinking_level_change":
            ctx.thinking_level = record.data.get("thinkingLevel")
        elif record.type == "compaction":
            # Atomic's verbatim compactions and pi's summary compactions both cut the history here.
            compaction_index = index

    start = 0
    if compaction_index is not None:
        compaction = path[compaction_index].data
        ctx.items.append(
            ContextItem(
                compaction["id"],
                CompactionSummaryMessage(
                    summary=str(compaction.get("summary", "")),
                    tokens_before=_int_or_zero(compaction.get("tokensBefore")),
                    verbatim=_is_verbatim_compaction(path[compaction_index]),
                ),
            )
        )
        first_kept = compaction.get("firstKeptEntryId")
        kept_ids = {r.id for r in path[:compaction_index]}
        if first_kept and first_kept in kept_ids:
            start = next(i for i, r in enumerate(path) if r.id == first_kept)
            for record in path[start:compaction_index]:
                message = _message_of(record)
                if message is not None:
                    ctx.items.append(ContextItem(record.id, message))
        start = compaction_index + 1
        ctx.compacted_since_usage = True

    for record in path[start:]:
        message = _message_of(record)
        if message is None:
            continue
        if getattr(message, "role", "") == "assistant":
            if message.provider:
                ctx.provider = ctx.provider or message.provider
            if message.stop_reason not in ("error", "aborted") and message.usage.total_tokens:
                ctx.compacted_since_usage = False
        ctx.items.append(ContextItem(record.id, message))
    return ctx
