"""Small helpers shared by the SDK-backed providers."""

from __future__ import annotations

from typing import Any


async def close_quietly(*closables: Any) -> None:
    """Close SDK streams and clients (in order) without a close error hiding the real outcome."""
    for closable in closables:
        if closable is None:
            continue
        try:
            await closable.close()
        except Exception:
            pass

