"""Slash commands through the real app: one table feeds completion, the palette and dispatch, and each
screen's typed result is applied through the engine by the command that opened it."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from textual.screen import ModalScreen

from atomic.core.contract import FRONTEND_COMMANDS
from atomic.tui.app import AtomicApp
from atomic.tui.commands import BY_NAME, COMMANDS, SlashCommandProvider
from atomic.tui.conversation import NoteMessage
from tests.tui.helpers import behind, make_app, type_text, wait_for
from tests.tui_screens.host import write_local_models


async def run_command(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")
    await pilot.pause()


async def open_screen(pilot: Any, command: str, screen_class: str) -> ModalScreen[Any]:
    app: AtomicApp = pilot.app
    await run_command(pilot, command)
    await wait_for(lambda: type(app.screen).__name__ == screen_class, pilot)
    screen = app.screen
    assert isinstance(screen, ModalScreen)
    return screen


async def closed(pilot: Any, screen: ModalScreen[Any]) -> None:
    await wait_for(lambda: pilot.app.screen is not screen, pilot)
    await pilot.pause()


async def say(pilot: Any, *texts: str) -> None:
    app: AtomicApp = pilot.app
    for text in texts:
        wanted = len(app.engine.messages()) + 2  # the prompt and the reply
        await run_command(pilot, text)
        await wait_for(lambda n=wanted: len(app.engine.messages()) >= n and not app.engine.is_streaming, pilot)


def test_each_command_is_declared_once() -> None:
    names = [command.name for command in COMMANDS]
    assert len(names) == len(set(names)) == len(BY_NAME)
    assert all(command.description for command in COMMANDS)


def test_the_commands_every_frontend_offers_come_from_the_engine_declaration() -> None:
    """/compact and /name read the same in the TUI and in an ACP editor: both take the engine's declaration."""
    from atomic.acp.session_bridge import BUILTIN_COMMANDS

    assert [c.name for c in FRONTEND_COMMANDS] == ["compact", "name"]
    for shared in FRONTEND_COMMANDS:
        assert (BY_NAME[shared.name].name, BY_NAME[shared.name].description) == (shared.name, shared.description)
        assert (shared.name, shared.description) in BUILTIN_COMMANDS


async def test_completion_and_palette_offer_the_table(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "/")
        await wait_for(lambda: app.completion.is_open, pilot)
        shown = [item.label for item in app.completion.items]
        assert shown[: len(COMMANDS)] == [f"/{c.name}" for c in COMMANDS][: len(shown)]
        provider = SlashCommandProvider(app.screen)
        hits = [hit async for hit in provider.discover()]
        assert [str(hit.display) for hit in hits] == [f"/{c.name}" for c in COMMANDS]
        next(hit for hit in hits if str(hit.display) == "/session").command()  # picked in the palette
        await wait_for(lambda: any("Session Info" in n.text for n in app.conversation.query(NoteMessage)), pilot)
        assert all(app.slash.handles(f"/{c.name} x") for c in COMMANDS)
        assert not app.slash.handles("/not-a-command")


async def test_model_choice_switches_and_becomes_the_default(tmp_path: Path, agent_dir: Path) -> None:
    write_local_models()
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await open_screen(pilot, "/model", "ModelPickerScreen")
        await pilot.press(*"beta", "enter")
        await closed(pilot, screen)
        assert app.engine.models.model.key == "localai/beta-thinker"
        assert "beta-thinker" in str(app.footer.render())
    settings = json.loads((agent_dir / "settings.json").read_text())
    assert (settings["defaultProvider"], settings["defaultModel"]) == ("localai", "beta-thinker")


async def test_escape_leaves_the_model_unchanged(tmp_path: Path) -> None:
    write_local_models()
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await open_screen(pilot, "/model", "ModelPickerScreen")
        await pilot.press("down", "escape")
        await closed(pilot, screen)
        assert app.engine.models.model.key == "scripted/scripted-model"


async def test_thinking_choice_is_set_and_saved(tmp_path: Path, agent_dir: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "/thinking", "ThinkingPickerScreen")
        await pilot.press("down", "enter")
        await closed(pilot, screen)
        assert app.engine.models.thinking_level == "high"
    assert json.loads((agent_dir / "settings.json").read_text())["defaultThinkingLevel"] == "high"


async def test_fork_choice_forks_and_puts_the_text_in_the_editor(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await say(pilot, "first question", "second question")
        old_path = app.engine.session_file
        screen = await open_screen(pilot, "/fork", "ForkPickerScreen")
        await pilot.press(*"first", "enter")
        await closed(pilot, screen)
        await wait_for(lambda: app.editor.text == "first question", pilot)
        assert app.engine.session_file != old_path
        # The new session stops just before the chosen message: nothing from the conversation is left.
        assert app.engine.sessions.fork_messages() == []


async def test_tree_choice_moves_the_leaf_and_returns_the_user_text(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await say(pilot, "one", "two")
        screen = await open_screen(pilot, "/tree", "TreeScreen")
        rows = screen.rows  # type: ignore[attr-defined]
        first_user = next(r for r in rows if r.text == "user: one")
        user_entry = behind(app).store.by_id[first_user.entry_id]
        await pilot.pause()
        screen.query_one("#tree-list").highlighted = rows.index(first_user)  # type: ignore[attr-defined]
        await pilot.press("enter")
        await closed(pilot, screen)
        await wait_for(lambda: app.editor.text == "one", pilot)
        # Continuing from a user message puts the leaf on its parent, so resending makes a branch.
        assert app.engine.sessions.tree().leaf_id == user_entry.parent_id


async def test_resume_choice_switches_the_session(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(110, 30)) as pilot:
        await say(pilot, "hello from the older session")
        older = app.engine.session_file
        await run_command(pilot, "/new")
        await wait_for(lambda: app.engine.session_file != older, pilot)
        await say(pilot, "the newer session")
        screen = await open_screen(pilot, "/resume", "SessionPickerScreen")
        await pilot.press(*"older", "enter")
        await closed(pilot, screen)
        await wait_for(lambda: app.engine.session_file == older, pilot)
        assert app.engine.sessions.fork_messages()[0].text == "hello from the older session"


async def test_login_choice_stores_the_key_privately(tmp_path: Path, agent_dir: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await open_screen(pilot, "/login", "LoginScreen")
        await pilot.press(*"anthropic", "enter")
        await pilot.press(*"sk-test-123", "enter")
        await closed(pilot, screen)
        await wait_for(lambda: any("Logged in" in n.text for n in app.conversation.query(NoteMessage)), pilot)
        assert "sk-test-123" not in str([n.text for n in app.conversation.query(NoteMessage)])
    auth_file = agent_dir / "auth.json"
    assert json.loads(auth_file.read_text())["anthropic"]["key"] == "sk-test-123"
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
