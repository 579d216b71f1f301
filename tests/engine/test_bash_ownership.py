"""Direct bash results reach the model from the session and branch they started in."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tests.support import user_texts

SLOW = "echo marker-output; sleep 0.4"


async def test_bash_result_after_switching_back_is_in_the_next_request(make_session: Callable[..., Any]) -> None:
    session, provider, _ = await make_session([{"text": "one"}, {"text": "two"}])
    await session.prompt("first")
    await session.wait_idle()
    original = str(session.store.path)
    bash = asyncio.ensure_future(session.bash.run(SLOW))
    await asyncio.sleep(0.1)
    await session.files.new_session()
    await session.files.switch_session(original)
    await bash
    await session.prompt("what did it print?")
    await session.wait_idle()
    sent = user_texts(provider.requests[-1].messages)
    assert any("Ran `echo marker-output; sleep 0.4`" in t and "marker-output" in t for t in sent)
    assert sent[-1] == "what did it print?"


async def test_bash_result_goes_to_its_own_branch_when_the_user_moved_away(make_session: Callable[..., Any]) -> None:
    session, provider, _ = await make_session([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    await session.prompt("first")
    await session.wait_idle()
    first_answer = session.store.leaf_id
    await session.prompt("second")
    await session.wait_idle()
    start_leaf = session.store.leaf_id
    bash = asyncio.ensure_future(session.bash.run(SLOW))
    await asyncio.sleep(0.1)
    await session.files.navigate_to(first_answer)  # another branch point, before "second"
    await bash
    # The current position is untouched and the model does not see the other branch's output...
    assert session.store.leaf_id == first_answer
    await session.prompt("third")
    await session.wait_idle()
    assert not any("marker-output" in t for t in user_texts(provider.requests[-1].messages))
    # ...and the result hangs under the entry where the request started.
    stored = [r for r in session.store.records if r.type == "message"
              and r.data["message"]["role"] == "bashExecution"]
    assert len(stored) == 1 and stored[0].parent_id == start_leaf
