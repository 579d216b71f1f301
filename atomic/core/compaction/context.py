"""How a compacted transcript re-enters the model's context.

The engine puts one CompactionSummaryMessage (from `boundary_message`) where the compacted
history was, followed by the kept tail; when building the provider request it sends that
message as user text via `compaction_summary_to_user_text`. The summary itself stays plain
compacted text, so a later compaction re-reads it line for line without nesting framing.
"""

from __future__ import annotations

from atomic.core.messages import BranchSummaryMessage, CompactionSummaryMessage, UserMessage

COMPACTION_FRAMING = (
    "The earlier part of this conversation was compacted to fit the context window. The lines "
    "inside <compacted-history> are copied verbatim from the original transcript; each "
    '"(filtered N lines)" line marks where N original lines were removed.'
)


def boundary_message(compacted_text: str, tokens_before: int) -> CompactionSummaryMessage:
    return CompactionSummaryMessage(summary=compacted_text, tokens_before=tokens_before)


# pi's framing for its prose summaries, so a session pi compacted reads to the model as it did in pi.
PI_SUMMARY_FRAMING = "The conversation history before this point was compacted into the following summary:"
PI_BRANCH_FRAMING = "The following is a summary of a branch that this conversation came back from:"


def compaction_summary_to_user_text(summary: CompactionSummaryMessage | str) -> str:
    if isinstance(summary, CompactionSummaryMessage) and not summary.verbatim:
        return f"{PI_SUMMARY_FRAMING}\n\n<summary>\n{summary.summary}\n</summary>"
    text = summary.summary if isinstance(summary, CompactionSummaryMessage) else summary
    return f"{COMPACTION_FRAMING}\n\n<compacted-history>\n{text}\n</compacted-history>"


def branch_summary_to_user_text(summary: BranchSummaryMessage) -> str:
    return f"{PI_BRANCH_FRAMING}\n\n<summary>\n{summary.summary}\n</summary>"


def compaction_summary_to_user_message(summary: CompactionSummaryMessage) -> UserMessage:
    return UserMessage(content=compaction_summary_to_user_text(summary), timestamp=summary.timestamp)
