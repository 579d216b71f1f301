"""What the terminal keeps after Atomic exits: the session and how to come back to it.

Printed to the normal screen once the app has left the alternate screen, so it stays in the scrollback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atomic.core.contract import Engine


def exit_summary(engine: Engine) -> str | None:
    """Two lines; None for a session that is not saved (nothing to resume) or that holds no message."""
    if engine.session_file is None or engine.message_count() == 0:
        return None
    name = engine.session_name or engine.session_id
    stats = engine.session_stats()
    prompts = f"{stats.user_messages} prompt" + ("" if stats.user_messages == 1 else "s")
    return (
        f"atomic · session {name} · {prompts} · ${stats.cost:.3f}\n"
        f"Resume it with `atomic -c` (the newest session here) or `atomic --session {engine.session_id}`"
    )
