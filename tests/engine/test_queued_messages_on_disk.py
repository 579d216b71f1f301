"""A steer or follow-up acknowledged while the agent streams is on disk (the queue journal beside the
session file) until its user message is stored; opening the session again puts it back in the queue."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.core.session.queue_file import journal_path
from tests.conftest import SessionMaker
from tests.support import wait_for

SLOW = {"text": "a slow answer that streams for a while", "chunkSize": 2, "delayMs": 15}


def journal_texts(session_file: Path) -> list[str]:
    path = journal_path(session_file)
    if not path.exists():
        return []
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]


def stored_user_texts(session_file: Path) -> list[str]:
    out = []
    for line in session_file.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            out.append(message["content"] if isinstance(message["content"], str) else message["content"][0]["text"])
    return out


async def test_a_queued_steer_is_on_disk_until_it_is_stored(make_session: SessionMaker) -> None:
    session, _provider, _recorder = await make_session([SLOW, {"text": "steered"}, {"text": "followed"}])
    await session.prompt("start")
    path = session.store.path
    assert path is not None
    await session.steer("change course")
    await session.follow_up("and then this")
    # Acknowledged: both are on disk already, in queue order.
    assert journal_texts(path) == ["change course", "and then this"]
    await session.wait_idle()
    assert stored_user_texts(path) == ["start", "change course", "and then this"]
    assert not journal_path(path).exists()


async def test_clearing_the_queue_clears_the_journal(make_session: SessionMaker) -> None:
    session, _provider, _recorder = await make_session([SLOW])
    await session.prompt("start")
    await session.steer("never mind")
    path = session.store.path
    assert path is not None and journal_texts(path) == ["never mind"]
    cleared = session.clear_queue()
    assert (cleared.steering, cleared.follow_up) == (("never mind",), ())
    assert not journal_path(path).exists()
    await session.wait_idle()
    assert stored_user_texts(path) == ["start"]


async def test_reopening_puts_unstored_queued_messages_back(make_session: SessionMaker) -> None:
    first, _provider, _recorder = await make_session([SLOW])
    await first.prompt("start")
    await first.steer("steer that was never delivered")
    await first.follow_up("follow-up that was never delivered")
    path = first.store.path
    assert path is not None
    journal = journal_path(path).read_text(encoding="utf-8")
    await first.abort(continue_queue=False)  # stopped with both still queued
    # As if the process had been killed while they were queued: the journal is as it was then, and
    # it also names a message that was stored after it was queued (delivered before the crash).
    journal_path(path).write_text(
        journal + json.dumps({"queue": "steer", "text": "start", "queuedAt": 0}) + "\n", encoding="utf-8"
    )
    again, _provider, _recorder = await make_session([{"text": "done"}, {"text": "done too"}], session=str(path))
    assert again.steering.texts() == ["steer that was never delivered"]
    assert again.follow_ups.texts() == ["follow-up that was never delivered"]
    await again.prompt("next")
    await wait_for(lambda: not again.is_streaming and not len(again.follow_ups), timeout=10)
    await again.wait_idle()
    texts = stored_user_texts(path)
    assert texts[-3:] == ["next", "steer that was never delivered", "follow-up that was never delivered"]
    assert not journal_path(path).exists()
