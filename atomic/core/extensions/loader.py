"""Extension discovery and loading (placeholder until the extension API lands)."""

from __future__ import annotations

from typing import Any


async def load_extensions(session: Any, options: Any) -> None:
    session.extensions = None
