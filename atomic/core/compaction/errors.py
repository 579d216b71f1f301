"""The one error type the compactor raises for its own failures.

Provider errors (transient after retries ran out, auth, fatal) are re-raised unchanged so the
engine can still see their `kind`; everything the compactor itself rejects is a CompactionError.
"""

from __future__ import annotations


class CompactionError(Exception):
    """Compaction could not produce a result (nothing to compact, unusable planner answer, ...)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
