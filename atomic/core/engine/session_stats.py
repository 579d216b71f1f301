"""What the session reports about itself: stats, context usage, and the HTML export."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from atomic.core.messages import AssistantMessage
from atomic.core.model_types import Model
from atomic.core.session.store import SessionStore
from atomic.core.tools.base import Tool

if TYPE_CHECKING:
    from atomic.core.records import ContextUsage, SessionStats


@dataclass
class _BranchTotals:
    """Counts and tokens from the root down to `leaf_id`."""

    leaf_id: str | None = None
    tokens: dict[str, int] = field(default_factory=lambda: {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0})
    cost: float = 0.0
    counts: dict[str, int] = field(default_factory=lambda: {"user": 0, "assistant": 0, "toolCalls": 0, "toolResults": 0})

    def add(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            self.counts["user"] += 1
        elif role == "assistant":
            self.counts["assistant"] += 1
            self.counts["toolCalls"] += sum(1 for b in message.get("content", []) if b.get("type") == "toolCall")
            usage = message.get("usage") or {}
            for key in ("input", "output", "cacheRead", "cacheWrite"):
                self.tokens[key] += int(usage.get(key, 0) or 0)
            self.cost += float((usage.get("cost") or {}).get("total", 0) or 0)
        elif role == "toolResult":
            self.counts["toolResults"] += 1
            details = message.get("details")
            if message.get("toolName") == "task" and isinstance(details, dict):
                # A subagent's own turns are in its file; its tokens and cost count for the session.
                usage = details.get("usage")
                child: dict[str, Any] = usage if isinstance(usage, dict) else {}
                for key in ("input", "output", "cacheRead", "cacheWrite"):
                    self.tokens[key] += int(child.get(key, 0) or 0)
                self.cost += float(details.get("cost", 0) or 0)


# Entries are only ever appended, so the totals down to a leaf stay true: the next call on the same
# branch adds only what came after it (a frontend asks after every message; a full walk grew with the
# session). A walk that never meets the remembered leaf (another branch) starts from zero.
_TOTALS: WeakKeyDictionary[SessionStore, _BranchTotals] = WeakKeyDictionary()


def _branch_totals(store: SessionStore) -> _BranchTotals:
    known = _TOTALS.get(store)
    newer: list[dict[str, Any]] = []
    current, seen = store.leaf_id, set()
    while current is not None and current not in seen and (known is None or current != known.leaf_id):
        seen.add(current)
        record = store.by_id.get(current)
        if record is None:
            break
        if record.type == "message":
            newer.append(record.data.get("message") or {})
        current = record.parent_id
    reached_known = known is not None and current is not None and current == known.leaf_id
    totals = known if reached_known and known is not None else _BranchTotals()
    for message in reversed(newer):
        totals.add(message)
    totals.leaf_id = store.leaf_id
    _TOTALS[store] = totals
    return totals


def session_stats(store: SessionStore, messages: list[Any], context: ContextUsage | None) -> SessionStats:
    """Counts, tokens and cost over the current branch (the `get_session_stats` answer)."""
    from atomic.core.records import SessionStats, TokenTotals

    totals = _branch_totals(store)
    tokens, counts = totals.tokens, totals.counts
    return SessionStats(
        session_id=store.session_id,
        session_file=store.path,
        user_messages=counts["user"],
        assistant_messages=counts["assistant"],
        tool_calls=counts["toolCalls"],
        tool_results=counts["toolResults"],
        total_messages=len(messages),
        tokens=TokenTotals(tokens["input"], tokens["output"], tokens["cacheRead"], tokens["cacheWrite"]),
        cost=round(totals.cost, 6),
        context_usage=context,
    )


def context_usage(model: Model | None, messages: list[Any], compacted_since_usage: bool) -> ContextUsage | None:
    """Last valid assistant usage plus a chars/4 estimate of what came after it."""
    from atomic.core.records import ContextUsage

    if model is None or not model.context_window:
        return None
    window = model.context_window
    if compacted_since_usage:
        return ContextUsage(tokens=None, context_window=window, percent=None)
    from atomic.core.compaction.tokens import estimate_message_tokens

    tokens = 0
    start = 0
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if (
            isinstance(message, AssistantMessage)
            and message.stop_reason not in ("error", "aborted")
            and message.usage.total_tokens
        ):
            u = message.usage
            tokens = u.total_tokens or (u.input + u.output + u.cache_read + u.cache_write)
            start = index + 1
            break
    for message in messages[start:]:
        tokens += estimate_message_tokens(message)
    return ContextUsage(tokens=tokens, context_window=window, percent=round(tokens * 100 / window, 1))


def export_html(
    store: SessionStore, cwd: Path, system_prompt: str, tools: list[Tool], output_path: str | None = None
) -> str:
    """Write the session as one self-contained HTML file; returns its path."""
    from atomic.core.export import default_export_path, write_session_html

    if store.path is None:
        raise ValueError("Cannot export in-memory session to HTML")
    entries = store.entries_since(None)
    if not any(e.get("type") == "message" for e in entries):
        raise ValueError("Nothing to export yet - start a conversation first")
    path = Path(output_path).expanduser() if output_path else default_export_path(store.path, cwd)
    if not path.is_absolute():
        path = cwd / path
    write_session_html(
        path,
        header=store.header,
        entries=entries,
        leaf_id=store.leaf_id,
        system_prompt=system_prompt,
        tools=[{"name": t.name, "description": t.description} for t in tools],
        session_file=store.path,
    )
    return str(path)


def last_assistant_text(messages: list[Any]) -> str | None:
    """The text of the branch's last assistant message that is not an error (None: there is none)."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage) and message.stop_reason != "error":
            text = message.text()
            if text or message.content:
                return text
    return None
