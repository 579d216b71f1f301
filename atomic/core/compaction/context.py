"""How a compacted transcript re-enters the model's context.

The engine puts one CompactionSummaryMessage (from `boundary_message`) where the compacted
history was, followed by the kept tail; when building the provider request it sends that
message as user text via `compaction_summary_to_user_text`. The summary itself stays plain
compacted text, so a later compaction re-reads it line for line without nesting framing.
"""

from __future__ import annotations

from atomic.core.messages import CompactionSummaryMessage, UserMessage

COMPACTION_FRAMING = (
    "The earlier part of this conversation was compacted to fit the context window. The lines "
    "inside <compacted-history> are copied verbatim from the original transcript; each "
    '"(filtered N lines)" line marks where N original lines were removed.'
)


def boundary_message(compacted_text: str, tokens_before: int) -> CompactionSummaryMessage:
    return CompactionSummaryMessage(summary=compacted_text, tokens_before=tokens_before)


def compaction_summary_to_user_text(summary: CompactionSummaryMessage | str) -> str:
    text = summary.summary if isinstance(summary, CompactionSummaryMessage) else summary
    return f"{COMPACTION_FRAMING}\n\n<compacted-history>\n{text}\n</compacted-history>"


def compaction_summary_to_user_message(summary: CompactionSummaryMessage) -> UserMessage:
    return UserMessage(content=compaction_summary_to_user_text(summary), timestamp=summary.timestamp)
