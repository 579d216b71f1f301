"""What the model sees: the active branch of a session, with compaction applied.

Building the context of a big session must not validate every message: a 50,000-entry file would
spend seconds in pydantic before the first `get_state` could answer. Each `ContextItem` therefore
keeps the stored message dict and builds its typed message on first use (`item.message`); the
RPC sends the stored JSON text or the stored dict (`item.stored()`), without a
model round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    parse_message,
)
from atomic.core.session.store import EntryRecord, SessionStore

VERBATIM_STRATEGY = "verbatim-lines"
# Roles of the AgentMessage union; a stored message with another role is not part of the context.
MESSAGE_ROLES = frozenset(
    {"user", "assistant", "toolResult", "bashExecution", "custom", "compactionSummary", "branchSummary"}
)


class ContextItem:
    """One message of the context: a typed message, or a stored dict parsed on first use."""

    __slots__ = ("entry_id", "_message", "_data", "_record")

    def __init__(
        self,
        entry_id: str | None,
        message: Any = None,
        data: dict[str, Any] | None = None,
        record: EntryRecord | None = None,
    ) -> None:
        self.entry_id = entry_id
        self._message = message
        self._data = data
        self._record = record

    @property
    def message(self) -> Any:
        if self._message is None:
            self._message = _parse_stored(self.entry_id, self._data or {})
        return self._message

    def stored(self) -> str | dict[str, Any]:
        """The message's JSON text exactly as stored in the session file when known (the record's
        `message_json`), else `wire`: what RPC `get_messages` sends for this message.

        The record's slice is spelled out here: this runs once per message of a 50,000-message
        answer, where each extra property call was ~5% of the whole answer.
        """
        record = self._record
        if record is not None and record.message_at:
            return record.raw[record.message_at : -1]
        return self.wire

    @property
    def wire(self) -> dict[str, Any]:
        """The message as the protocol spells it (the stored dict when it came from the file)."""
        if self._data is not None:
            return self._data
        wire: dict[str, Any] = self._message.to_wire()
        return wire


def _parse_stored(entry_id: str | None, data: dict[str, Any]) -> Any:
    try:
        return parse_message(data)
    except Exception as exc:
        # A stored message that does not validate is shown as a failed turn: never sent to the
        # model (convert_to_llm skips error messages) and never a crash deep inside a prompt.
        return AssistantMessage(stop_reason="error", error_message=f"Unreadable message entry {entry_id}: {exc}")


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
    if record.type != "compaction":
        return False
    details = record.data.get("details") or {}
    return isinstance(details, dict) and details.get("strategy") == VERBATIM_STRATEGY


def _int_or_zero(value: Any) -> int:
    # A hand-edited or foreign file may hold anything here; the count is only shown, never trusted.
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _item_of(record: EntryRecord) -> ContextItem | None:
    if record.type == "message":
        message = record.data.get("message")
        if isinstance(message, dict) and message.get("role") in MESSAGE_ROLES:
            return ContextItem(record.id, data=message, record=record)
        return None
    data = record.data
    if record.type == "branch_summary":
        # pi writes these when /tree leaves a branch; the model reads them as pi's framed user text.
        summary = BranchSummaryMessage(summary=str(data.get("summary", "")), from_id=str(data.get("fromId") or "root"))
        return ContextItem(record.id, summary)
    if record.type == "custom_message":
        custom = CustomMessage(
            custom_type=data.get("customType", "custom"),
            content=data.get("content", ""),
            display=data.get("display", True),
            details=data.get("details"),
        )
        return ContextItem(record.id, custom)
    return None


def _has_usage(message: dict[str, Any]) -> bool:
    """A finished assistant message with real token usage (it ends the post-compaction blind spot)."""
    if message.get("stopReason") in ("error", "aborted"):
        return False
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return False
    total = usage.get("totalTokens")
    return isinstance(total, int | float) and not isinstance(total, bool) and total > 0


def _todos_cut_by(compacted: list[EntryRecord], kept: list[ContextItem]) -> CustomMessage | None:
    """The to-do list a compaction would otherwise drop: set before the cut and not among the kept
    messages. It comes back as a note after the summary, so the model keeps its plan."""
    from atomic.core.tools.todo import TODO_CUSTOM_TYPE, format_todos, latest_todos, todos_in_message

    if any(todos_in_message(item.wire) is not None for item in kept):
        return None
    messages = (r.data.get("message") for r in reversed(compacted) if r.type == "message")
    todos = latest_todos(m for m in messages if isinstance(m, dict))
    if not todos:
        return None
    return CustomMessage(
        custom_type=TODO_CUSTOM_TYPE,
        content="The to-do list so far (kept across the compaction):\n" + format_todos(todos),
        display=False,
        details={"todos": [item.to_dict() for item in todos]},
    )


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
                item = _item_of(record)
                if item is not None:
                    ctx.items.append(item)
        carried = _todos_cut_by(path[:compaction_index], ctx.items)
        if carried is not None:
            ctx.items.append(ContextItem(None, carried))
        start = compaction_index + 1
        ctx.compacted_since_usage = True

    for record in path[start:]:
        item = _item_of(record)
        if item is None:
            continue
        stored = item.wire
        if stored.get("role") == "assistant":
            provider = stored.get("provider")
            if isinstance(provider, str) and provider:
                ctx.provider = ctx.provider or provider
            if _has_usage(stored):
                ctx.compacted_since_usage = False
        ctx.items.append(item)
    return ctx
