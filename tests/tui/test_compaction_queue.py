"""Messages typed while a compaction runs are queued, shown, and sent after it."""

from __future__ import annotations

from pathlib import Path

from atomic.core.events import CompactionEnd
from tests.tui.helpers import behind, make_app, type_text, wait_for


async def test_messages_typed_during_compaction_are_sent_after_it(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        behind(app).compaction.is_compacting = True
        await type_text(pilot, "after the summary")
        await pilot.press("enter")
        await pilot.pause()
        assert app.input_flow.after_compaction == ["after the summary"]
        assert "after the summary" in str(app.queue_panel.render())
        assert any(n.message == "Queued for after compaction" for n in app._notifications)
        assert app.engine.last_assistant_text() is None
        behind(app).compaction.is_compacting = False
        app.bridge.handle(CompactionEnd(reason="manual", aborted=True))
        await wait_for(lambda: app.engine.last_assistant_text() == "You said: after the summary", pilot)
        assert app.input_flow.after_compaction == []

