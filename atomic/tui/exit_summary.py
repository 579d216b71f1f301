"""What the terminal keeps after Atomic exits: the session and how to come back to it.

Printed to the normal screen once the app has left the alternate screen, so it stays in the scrollback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atomic.core.contract import Engine


def exit_summary(session: Engine) -> str | None:
    """Two lines; None for a session that is not saved (nothing to resume) or that holds no message."""
    if session.session_file is None or session.message_count() == 0:
        return None
    name = session.session_name or session.session_id
    stats = session.session_stats()
    prompts = f"{stats.user_messages} prompt" + ("" if stats.user_messages == 1 else "s")
    return (
        f"atomic · session {name} · {prompts} · ${stats.cost:.3f}\n"
        f"Resume it with `atomic -c` (the newest session here) or `atomic --session {session.session_id}`"
    )
