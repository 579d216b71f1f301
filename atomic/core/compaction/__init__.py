"""Atomic's verbatim line compaction: the planner picks lines to delete, the host rebuilds the
kept text mechanically. Pure and engine-agnostic; the engine wires it to sessions and events."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

# Where each name lives: the engine imports submodules (tokens, context) on every run, and importing a
# submodule runs this file first, so the planner and its prompt load only when a name is asked for.
_HOME = {
    "PROMPT_VERSION": "prompt",
    "STRATEGY": "compactor",
    "CompactionError": "errors",
    "CompactionResult": "compactor",
    "CompactionStats": "compactor",
    "PlannerReply": "records",
    "RetryPolicy": "compactor",
    "Transcript": "serialize",
    "backup_session_file": "backup",
    "boundary_message": "context",
    "compaction_summary_to_user_text": "context",
    "plan_and_compact": "compactor",
    "serialize_messages": "serialize",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = vars(importlib.import_module(f"{__name__}.{_HOME[name]}"))[name]
    globals()[name] = value
    return value


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
