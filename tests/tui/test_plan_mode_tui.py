"""Plan mode and web_fetch in the TUI: F2 reaches plan mode, the footer names it, exit_plan's card shows
the plan and switches the mode back on yes, and a fetch waits on the approval card with its domain rule."""

from __future__ import annotations

from pathlib import Path

from tests.tui.helpers import make_app, submit, wait_for
from tests.tui.test_approvals import card, wait_ready

PLAN = "## Plan\n1. Rename parse() to read_config()\n2. Run the tests"


async def test_f2_cycles_into_plan_mode(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [], permission_mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.engine is not None and app.session_ready, pilot)
        await pilot.press("f2")
        assert app.engine.permission_mode == "plan"
        assert "plan" in str(app.footer.render())
        await pilot.press("shift+tab")  # Shift+Tab cycles the same way
        assert app.engine.permission_mode == "ask"


async def test_the_plan_card_shows_the_plan_and_yes_leaves_plan_mode(tmp_path: Path) -> None:
    script = [{"toolCalls": [{"name": "exit_plan", "id": "p1", "arguments": {"plan": PLAN}}]}, {"text": "on it"}]
    app = make_app(tmp_path / "p", script, permission_mode="ask")
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_for(lambda: app.engine is not None and app.session_ready, pilot)
        app.engine.set_permission_mode("plan")
        await submit(pilot, "plan the rename")
        shown = await wait_ready(app, pilot)
        assert "Rename parse() to read_config()" in shown.request.title
        await pilot.press("y")
        await wait_for(lambda: card(app) is None and not app.engine.is_streaming, pilot, timeout=10)
        assert app.engine.permission_mode == "ask"


async def test_a_web_fetch_waits_on_the_approval_card(tmp_path: Path) -> None:
    script = [{"toolCalls": [{"name": "web_fetch", "id": "f1", "arguments": {"url": "http://127.0.0.1:9/x"}}]},
              {"text": "not fetched"}]
    app = make_app(tmp_path / "p", script, permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await submit(pilot, "fetch it")
        shown = await wait_ready(app, pilot)
        assert shown.border_title == "Allow web_fetch?" and shown.request.title == "Fetch http://127.0.0.1:9/x"
        assert shown.request.always_rules == ("WebFetch(domain:127.0.0.1)",)
        await pilot.press("n")
        await wait_for(lambda: card(app) is None and not app.engine.is_streaming, pilot, timeout=10)
