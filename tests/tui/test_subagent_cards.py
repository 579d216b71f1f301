"""Subagents in the TUI: each `task` call is one card with the child's live status, never the child's
own messages in the transcript; three concurrent children are shown side by side while they work."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from atomic.tui.app import AtomicApp
from atomic.tui.conversation import AssistantText
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import make_app, submit, wait_for


def task(call_id: str, part: int) -> dict[str, Any]:
    return {"name": "task", "id": call_id,
            "arguments": {"description": f"survey part {part}", "prompt": f"part {part}: list what is there",
                          "agent": "explore"}}


THREE = [
    {"matchFirst": "^split", "toolCalls": [task(f"t{i}", i) for i in range(3)]},
    *({"matchFirst": f"^part {i}", "text": f"child {i} is looking", "chunkSize": 100, "hang": True} for i in range(3)),
]


def cards(app: AtomicApp) -> list[ToolCard]:
    return list(app.query(ToolCard))


async def test_children_show_as_task_cards_not_as_messages(tmp_path: Path) -> None:
    script = [
        {"matchFirst": "^look", "toolCalls": [task("t1", 1)]},
        {"matchFirst": "^part 1", "text": "CHILD-ANSWER: two files"},
        {"matchFirst": "^look", "text": "parent done"},
    ]
    app = make_app(tmp_path / "project", script)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "look around")
        await wait_for(lambda: app.engine.last_assistant_text() == "parent done", pilot)
        await pilot.pause(0.2)
        [card] = cards(app)
        assert "explore · survey part 1" in str(card._header_content())
        # The child's reply is the card's result, not a message of its own in the transcript.
        texts = [view.text_so_far for view in app.query(AssistantText)]
        assert "parent done" in texts and not any("CHILD-ANSWER" in text for text in texts)


async def test_three_children_are_live_at_once(tmp_path: Path) -> None:
    app = make_app(tmp_path / "project", THREE)
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "split the work")
        await wait_for(lambda: len(cards(app)) == 3 and all("working" in c.output for c in cards(app)), pilot)
        assert app.engine.is_streaming
        await app.engine.abort()


def test_three_subagents_snapshot(snap_compare: Any) -> None:
    async def run_before(pilot: Any) -> None:
        app: AtomicApp = pilot.app
        await submit(pilot, "split the work")
        await wait_for(lambda: len(cards(app)) == 3 and all("working" in c.output for c in cards(app)), pilot)
        await pilot.pause(0.4)

    app = make_app(Path(os.environ["HOME"]) / "project", THREE)
    assert snap_compare(app, terminal_size=(100, 24), run_before=run_before)
