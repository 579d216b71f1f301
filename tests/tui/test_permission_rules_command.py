"""`/permissions` lists, adds and removes rules; an added allow rule skips the approval card."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.helpers import make_app, submit, wait_for
from tests.tui.test_approvals import bash, results


async def test_permissions_adds_lists_and_removes_rules(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "p"
    app = make_app(cwd, [bash("make build", "c1"), {"text": "built"}], permission_mode="ask")
    async with app.run_test(size=(120, 30), notifications=True) as pilot:
        await wait_for(lambda: app.engine is not None, pilot)
        await submit(pilot, "/permissions allow Bash(make build:*)")
        await wait_for(lambda: any("Added allow rule" in n.message for n in app._notifications), pilot)
        assert json.loads((agent_dir / "settings.json").read_text())["permissions"]["allow"] == ["Bash(make build:*)"]
        await submit(pilot, "/permissions")
        await wait_for(lambda: any("allow Bash(make build:*)  (user)" in n.message for n in app._notifications), pilot)
        await submit(pilot, "build it")
        # Nobody answers a card here: the command finished only because the rule covered it.
        await wait_for(lambda: len(results(app)) == 1 and not app.engine.is_streaming, pilot, timeout=10)
        assert app.approver.card is None
        await submit(pilot, "/permissions remove allow Bash(make build:*)")
        await wait_for(lambda: any("Removed allow rule" in n.message for n in app._notifications), pilot)
        await submit(pilot, "/permissions allow Bash(unclosed")
        await wait_for(lambda: any("Cannot read the permission rule" in n.message for n in app._notifications), pilot)
    assert json.loads((agent_dir / "settings.json").read_text())["permissions"]["allow"] == []
