"""Session stats are counted once per entry: asked after every message, they add only what came since, and
they stay right across branches (a walk that does not meet the remembered leaf starts from zero)."""

from __future__ import annotations

from typing import Any

from atomic.core.engine import session_stats as stats_module
from atomic.core.records import SessionStats


def branch_stats(session: Any) -> SessionStats:
    """What the engine's `session_stats()` answers for this session."""
    return stats_module.session_stats(session.store, session.context_messages(), session.context_usage())


def fresh_stats(session: Any) -> SessionStats:
    stats_module._TOTALS.clear()
    return branch_stats(session)


async def test_incremental_stats_match_a_full_count_on_every_branch(make_session: Any) -> None:
    script = [{"text": f"answer {n}"} for n in range(4)] + [
        {"toolCalls": [{"name": "ls", "arguments": {"path": "."}, "id": "c1"}]},
        {"text": "listed"},
    ]
    session, _provider, _rec = await make_session(script)
    seen = []
    for prompt in ("one", "two", "three"):
        await session.prompt(prompt)
        await session.wait_idle()
        seen.append(branch_stats(session))  # incremental
        assert seen[-1] == fresh_stats(session)
    assert [s.user_messages for s in seen] == [1, 2, 3]
    first_user = next(r.id for r in session.store.path_to() if r.type == "message" and r.data["message"]["role"] == "user")
    branch_stats(session)  # remembered at the newest leaf
    await session.files.navigate_to(first_user)
    on_the_old_branch = branch_stats(session)
    assert on_the_old_branch == fresh_stats(session)
    await session.prompt("four")
    await session.wait_idle()
    await session.prompt("five")
    await session.wait_idle()
    incremental = branch_stats(session)
    assert incremental == fresh_stats(session)
    assert incremental.tool_calls == 1 and incremental.tool_results == 1
