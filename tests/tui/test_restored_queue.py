"""Messages still queued when Atomic stopped (the `<session>.jsonl.queue` journal) are back in the queue
panel as soon as the session opens again, before anything else changes the queue."""

from __future__ import annotations

import json
import time
from pathlib import Path

from atomic.core.session.queue_file import journal_path
from tests.tui.helpers import behind, make_app, submit, user_texts, wait_for


async def test_a_continued_session_shows_its_restored_queue_at_start(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    first = make_app(cwd, [{"text": "hello"}])
    async with first.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "start")
        await wait_for(lambda: user_texts(first) == ["start"] and not behind(first).is_streaming, pilot)
        session_file = behind(first).store.path
    assert session_file is not None
    # As if Atomic had been killed with a steer and a follow-up acknowledged but not delivered.
    queued_at = int(time.time() * 1000)
    lines = [
        {"queue": "steer", "text": "use the new parser", "queuedAt": queued_at},
        {"queue": "followUp", "text": "then run the tests", "queuedAt": queued_at},
    ]
    journal_path(session_file).write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    again = make_app(cwd, continue_recent=True)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: again.session_ready, pilot)
        await pilot.pause()
        panel = again.queue_panel
        assert (panel.steering, panel.follow_up) == (["use the new parser"], ["then run the tests"])
        assert panel.display and panel.has_class("-active")
        shown = str(panel.render())
        assert "Steering: use the new parser" in shown and "Follow-up: then run the tests" in shown
