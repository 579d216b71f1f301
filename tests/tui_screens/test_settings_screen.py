"""The settings screen: changes are written to <agentDir>/settings.json and reach the engine at once."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual import events
from textual.widgets import Input, OptionList

from atomic.tui.screens.settings_screen import SettingsScreen
from atomic.tui.theme import DARK, LIGHT
from tests.tui.helpers import make_app, type_text, wait_for
from tests.tui_screens.host import HostApp, read_settings, wait_for_modal


async def highlight(pilot: Any, screen: Any, key: str) -> None:
    option_list = screen.query_one(OptionList)
    index = next(i for i, o in enumerate(option_list.options) if o.id == key)
    option_list.highlighted = index
    await pilot.pause()


async def test_toggle_auto_compaction_persists_and_applies(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        assert app.engine.auto_compaction_enabled is True
        await highlight(pilot, screen, "compaction.enabled")
        await pilot.press("space")
        assert app.engine.auto_compaction_enabled is False
        assert read_settings()["compaction"]["enabled"] is False
        await pilot.press("enter")
        assert app.engine.auto_compaction_enabled is True
        assert read_settings()["compaction"]["enabled"] is True


async def test_queue_modes_cycle_and_reach_the_queues(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "steeringMode")
        await pilot.press("right")
        await highlight(pilot, screen, "followUpMode")
        await pilot.press("left")
    assert app.engine.steering_mode == "all"
    assert app.engine.follow_up_mode == "all"
    settings = read_settings()
    assert (settings["steeringMode"], settings["followUpMode"]) == ("all", "all")
    assert app.engine.settings.steering_mode == "all"


async def test_theme_is_saved_and_the_screen_leaves_the_look_to_the_app(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "theme")
        await pilot.press("enter")
        assert read_settings()["theme"] == "light"
        assert app.theme == "textual-dark"  # a host without a SettingChanged handler keeps its look
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == ["Settings saved (Theme)"]


async def test_light_theme_and_hidden_thinking_apply_to_the_real_app_at_once(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(110, 34)) as pilot:
        await type_text(pilot, "/settings")
        await pilot.press("enter")
        await wait_for(lambda: isinstance(app.screen, SettingsScreen), pilot)
        screen = app.screen
        assert app.theme == DARK.name
        await highlight(pilot, screen, "theme")
        await pilot.press("enter")
        await wait_for(lambda: app.theme == LIGHT.name, pilot)  # Atomic's light theme, not Textual's
        await highlight(pilot, screen, "hideThinkingBlock")
        await pilot.press("enter")
        await wait_for(lambda: app.conversation.has_class("-thinking-hidden"), pilot)
        assert app.screen is screen  # applied while the screen is still open
        await pilot.press("escape")
        await wait_for(lambda: app.screen is not screen, pilot)
    assert app.theme == LIGHT.name
    assert read_settings()["theme"] == "light"


async def test_thinking_level_and_double_escape(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "defaultThinkingLevel")
        await pilot.press("left")
        await highlight(pilot, screen, "doubleEscapeAction")
        await pilot.press("space")
    assert app.engine.models.thinking_level == "low"
    settings = read_settings()
    assert settings["defaultThinkingLevel"] == "low"
    assert settings["doubleEscapeAction"] == "tree"


async def test_number_is_edited_in_a_box_and_validated(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "compaction.compression_ratio")
        await pilot.press("enter")
        edit = screen.query_one("#settings-edit", Input)
        assert edit.display and edit.has_focus
        edit.value = ""
        await pilot.press(*"1.5", "enter")
        # Out of range: refused, the box stays open, nothing saved.
        assert edit.display
        assert not (Path(app.engine.agent_dir) / "settings.json").exists()
        edit.value = ""
        await pilot.press(*"0.3", "enter")
        assert not edit.display
        assert read_settings()["compaction"]["compression_ratio"] == 0.3
        assert app.engine.settings.compaction.compression_ratio == 0.3
        # Arrows step numbers directly.
        await highlight(pilot, screen, "retry.maxRetries")
        await pilot.press("right")
        assert read_settings()["retry"]["maxRetries"] == 4


async def test_text_setting_and_clearing_it(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "shellCommandPrefix")
        await pilot.press("enter", *"set -e;", "enter")
        assert app.engine.settings.shell_command_prefix == "set -e;"
        await pilot.press("enter")
        screen.query_one("#settings-edit", Input).value = ""
        await pilot.press("enter")
        assert "shellCommandPrefix" not in read_settings()
        assert app.engine.settings.shell_command_prefix is None


async def test_typing_filters_the_list(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press(*"bell")
        ids = [o.id for o in screen.query_one(OptionList).options]
        assert ids[0] == "bellOnTurnEnd"
        await pilot.press("enter")  # ends the search: the rows take the keys again
        assert "bellOnTurnEnd" not in saved()
        await pilot.press("space")
        assert read_settings()["bellOnTurnEnd"] is False
        await pilot.press("escape")  # clears the filter first
        assert len(screen.query_one(OptionList).options) > 10
        assert app.screen is screen


def saved() -> dict[str, Any]:
    try:
        return read_settings()
    except FileNotFoundError:
        return {}


async def test_typing_a_search_never_changes_a_setting(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        for key in "auto compact":
            await pilot.press("space" if key == " " else key)
        assert screen.filter_text == "auto compact"
        await pilot.press("right")  # ends the search, changes nothing
        assert not screen.searching and app.engine.auto_compaction_enabled is True
        await pilot.press(*"x y")  # a new search, space included
        assert screen.filter_text == "auto compactx y"
        await pilot.press("enter")
        assert not screen.searching
    assert "compaction" not in saved() and app.engine.auto_compaction_enabled is True


async def test_a_search_typed_faster_than_the_screen_draws_never_changes_a_setting(tmp_path: Path) -> None:
    """Keys arrive as a terminal sends them, all at once: the space must still join the search."""
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "compaction.enabled")
        for key, character in (("a", "a"), ("space", " "), ("b", "b"), ("backspace", None), ("c", "c")):
            app.post_message(events.Key(key, character))
        await pilot.pause()
        await wait_for(lambda: screen.filter_text == "a c", pilot)
        assert screen.searching and app.engine.auto_compaction_enabled is True
    assert "compaction" not in saved()


async def test_broken_settings_file_is_not_overwritten_and_nothing_changes(tmp_path: Path) -> None:
    settings_file = Path(os.environ["ATOMIC_CODING_AGENT_DIR"]) / "settings.json"
    settings_file.write_text("{ not json", encoding="utf-8")
    app = HostApp(tmp_path, SettingsScreen)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = await wait_for_modal(pilot)
        await highlight(pilot, screen, "compaction.enabled")
        await pilot.press("space")
        assert app.screen is screen  # an error notification, not a crash
    assert settings_file.read_text(encoding="utf-8") == "{ not json"
    assert app.engine.auto_compaction_enabled is True
