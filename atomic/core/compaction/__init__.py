"""Atomic's verbatim line compaction: the planner picks lines to delete, the host rebuilds the
kept text mechanically. Pure and engine-agnostic; the engine wires it to sessions and events."""

from atomic.core.compaction.backup import backup_session_file
from atomic.core.compaction.compactor import (
    STRATEGY,
    CompactionResult,
    CompactionStats,
    RetryPolicy,
    plan_and_compact,
)
from atomic.core.compaction.context import boundary_message, compaction_summary_to_user_text
from atomic.core.compaction.errors import CompactionError
from atomic.core.compaction.prompt import PROMPT_VERSION
from atomic.core.compaction.records import PlannerReply
from atomic.core.compaction.serialize import Transcript, serialize_messages

__all__ = [
    "PROMPT_VERSION",
    "STRATEGY",
    "CompactionError",
    "CompactionResult",
    "CompactionStats",
    "PlannerReply",
    "RetryPolicy",
    "Transcript",
    "backup_session_file",
    "boundary_message",
    "compaction_summary_to_user_text",
    "plan_and_compact",
    "serialize_messages",
]
