"""The first-run project trust dialog and /trust in the real AtomicApp."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.widgets import Static

from atomic.core.trust import TrustStore
from atomic.tui.app import AtomicApp
from atomic.tui.screens.trust_screen import TrustScreen
from tests.tui.helpers import behind, make_app, type_text, wait_for


def project_with_extension(root: Path) -> Path:
    ext = root / ".atomic" / "extensions"
    ext.mkdir(parents=True, exist_ok=True)
    (ext / "hello.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('IMPORTED').write_text('x')\n"
        "def activate(atomic):\n    atomic.register_command('hello', lambda args, ctx: None)\n"
    )
    (root / "AGENTS.md").write_text("project rules")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"db": {"command": "db-server", "args": ["--ro"]}}}))
    return root


async def open_dialog(app: AtomicApp, pilot: Any) -> TrustScreen:
    await wait_for(lambda: isinstance(app.screen, TrustScreen), pilot)
    screen = app.screen
    assert isinstance(screen, TrustScreen)
    return screen


async def test_first_run_dialog_names_what_loads_and_trust_saves(tmp_path: Path, agent_dir: Path) -> None:
    cwd = project_with_extension(tmp_path / "repo")
    app = make_app(cwd)
    async with app.run_test(size=(110, 40)) as pilot:
        screen = await open_dialog(app, pilot)
        offer = str(screen.query_one("#trust-offer", Static).render())
        assert ".atomic/extensions/hello.py" in offer and "db: db-server --ro" in offer and "AGENTS.md" in offer
        assert not (cwd / ".atomic" / "extensions" / "IMPORTED").exists()  # nothing ran before the answer
        await pilot.press("enter")  # "Trust this folder (saved)" is highlighted first
        await wait_for(lambda: app.engine.trust.decision.trusted, pilot)
        await wait_for(lambda: (cwd / ".atomic" / "extensions" / "IMPORTED").exists(), pilot)
        await wait_for(lambda: "hello" in behind(app).extensions.registered_commands, pilot)
        assert "project rules" in behind(app).toolset.system_prompt
    assert TrustStore(agent_dir).lookup(cwd) == (cwd.resolve(), True)


async def test_trust_once_saves_nothing_and_dont_trust_is_remembered(tmp_path: Path, agent_dir: Path) -> None:
    cwd = project_with_extension(tmp_path / "repo")
    app = make_app(cwd)
    async with app.run_test(size=(110, 40)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press("down", "enter")  # trust once
        await wait_for(lambda: app.engine.trust.decision.source == "once", pilot)
        assert app.engine.trust.decision.trusted
    assert TrustStore(agent_dir).lookup(cwd) is None

    second = make_app(cwd)
    async with second.run_test(size=(110, 40)) as pilot:
        await open_dialog(second, pilot)
        await pilot.press("down", "down", "enter")  # don't trust
        await wait_for(lambda: second.engine.trust.decision.source == "saved", pilot)
        assert not second.engine.trust.decision.trusted
        assert "project rules" not in behind(second).toolset.system_prompt
    assert TrustStore(agent_dir).lookup(cwd) == (cwd.resolve(), False)

    third = make_app(cwd)  # the saved "no" decides: no dialog
    async with third.run_test(size=(110, 40)) as pilot:
        await wait_for(lambda: third.session_ready, pilot)
        await pilot.pause()
        assert not isinstance(third.screen, TrustScreen)


async def test_a_folder_that_brings_nothing_starts_without_asking(tmp_path: Path, agent_dir: Path) -> None:
    app = make_app(tmp_path / "empty")
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await pilot.pause()
        assert not isinstance(app.screen, TrustScreen)
        assert app.engine.trust.decision.undecided


async def test_slash_trust_views_and_forgets_the_decision(tmp_path: Path, agent_dir: Path) -> None:
    cwd = project_with_extension(tmp_path / "repo")
    TrustStore(agent_dir).save(cwd, False)
    app = make_app(cwd)
    async with app.run_test(size=(110, 40)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await type_text(pilot, "/trust")
        await pilot.press("enter")
        screen = await open_dialog(app, pilot)
        head = str(screen.query_one("#trust-head", Static).render())
        assert "not trusted" in head and "saved decision" in head
        await pilot.press("down", "down", "down", "enter")  # forget
        await wait_for(lambda: app.engine.trust.decision.undecided, pilot)
    assert TrustStore(agent_dir).lookup(cwd) is None


def test_trust_dialog_snapshot(snap_compare: Any) -> None:
    cwd = project_with_extension(Path(os.environ["HOME"]) / "project")
    app = make_app(cwd)

    async def wait(pilot: Any) -> None:
        await open_dialog(app, pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=wait)


async def test_initial_message_waits_for_the_answer(tmp_path: Path, agent_dir: Path) -> None:
    cwd = project_with_extension(tmp_path / "repo")
    app = AtomicApp(make_app(cwd, [{"text": "done"}]).options, clock=lambda: 0.0, cursor_blink=False,
                    initial_message="hello there")
    async with app.run_test(size=(110, 40)) as pilot:
        await open_dialog(app, pilot)
        await pilot.pause(0.2)
        assert app.engine.messages() == []  # nothing sent while the dialog is open
        await pilot.press("enter")
        await wait_for(lambda: len(app.engine.messages()) >= 2, pilot)
        # The prompt went out with the project's context file, trusted just before.
        assert "project rules" in behind(app).toolset.system_prompt


async def test_letters_typed_while_the_first_run_dialog_is_open_reach_the_editor(tmp_path: Path, agent_dir: Path) -> None:
    cwd = project_with_extension(tmp_path / "repo")
    app = make_app(cwd)
    async with app.run_test(size=(110, 40)) as pilot:
        await open_dialog(app, pilot)
        await pilot.press(*"fix", "space", *"it")
        assert isinstance(app.screen, TrustScreen)  # letters choose nothing
        await pilot.press("enter")  # still picks the highlighted choice: Trust
        await wait_for(lambda: app.engine.trust.decision.trusted, pilot)
        await wait_for(lambda: app.editor.text == "fix it", pilot)
        assert app.editor.has_focus
    assert TrustStore(agent_dir).lookup(cwd) == (cwd.resolve(), True)
