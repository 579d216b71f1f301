"""Model, thinking, fork and hotkeys screens driven by Textual's pilot over a real engine session: each returns a
typed result and leaves the session as it was (tests/tui/test_slash_commands.py applies the results)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, OptionList

from atomic.tui.screens.fork_picker import ForkPickerScreen
from atomic.tui.screens.fuzzy import fuzzy_filter
from atomic.tui.screens.hotkeys_screen import HotkeysScreen
from atomic.tui.screens.model_picker import ModelChoice, ModelPickerScreen
from atomic.tui.screens.thinking_picker import ThinkingPickerScreen
from tests.tui_screens.host import HostApp, agent_dir, wait_for_modal, write_local_models


def option_ids(screen: object) -> list[str]:
    """The rows that can be picked (the model picker's provider headings are not)."""
    option_list = screen.query_one(OptionList)  # type: ignore[attr-defined]
    return [o.id for o in option_list.options if not o.disabled or not str(o.id).startswith("provider-group:")]


async def test_model_picker_filters_and_returns_the_choice(tmp_path: Path) -> None:
    write_local_models()
    app = HostApp(tmp_path, ModelPickerScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        ids = option_ids(screen)
        # The current (scripted) model comes first; the configured local provider's models follow.
        assert ids[0] == "scripted/scripted-model"
        assert {"localai/alpha-coder", "localai/beta-thinker", "localai/gamma-mini"} <= set(ids)
        await pilot.press(*"beta")
        assert option_ids(screen)[0] == "localai/beta-thinker"
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [ModelChoice("localai", "beta-thinker")]
    assert app.engine.models.model.key == "scripted/scripted-model"  # the caller switches, not the screen


async def test_model_picker_arrow_keys_and_escape_cancel(tmp_path: Path) -> None:
    write_local_models()
    app = HostApp(tmp_path, ModelPickerScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press("down")
        option_list = screen.query_one(OptionList)
        # Down passes over the next provider's heading to its first model.
        assert option_list.highlighted_option.id == "localai/alpha-coder"
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]
    assert app.engine.models.model.key == "scripted/scripted-model"


async def test_model_picker_tab_shows_models_without_key_disabled(tmp_path: Path) -> None:
    app = HostApp(tmp_path, ModelPickerScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        assert option_ids(screen) == ["scripted/scripted-model"]
        await pilot.press("tab")
        options = screen.query_one(OptionList).options
        assert len(options) > 10
        without_key = [o for o in options if o.id and o.id.startswith("anthropic/")]
        assert without_key and all(o.disabled for o in without_key)


async def test_thinking_picker_returns_the_level(tmp_path: Path) -> None:
    app = HostApp(tmp_path, ThinkingPickerScreen)
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await wait_for_modal(pilot)
        assert option_ids(screen) == app.engine.models.supported_levels()
        # The current level (medium) is highlighted; one step down is "high".
        assert screen.query_one(OptionList).highlighted_option.id == "medium"
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.results == ["high"]
    assert app.engine.models.thinking_level == "medium"
    assert not (agent_dir() / "settings.json").exists()


async def test_fork_picker_returns_the_entry_id(tmp_path: Path) -> None:
    async def converse(engine: object) -> None:
        for text in ("first question", "second question"):
            await engine.prompt(text)  # type: ignore[attr-defined]
            await engine.wait_idle()  # type: ignore[attr-defined]

    app = HostApp(tmp_path, ForkPickerScreen, prepare=converse)
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await wait_for_modal(pilot)
        old_path = app.engine.session_file
        first = app.engine.sessions.fork_messages()[0]
        assert first.text == "first question"
        assert len(option_ids(screen)) == 2
        await pilot.press(*"first", "enter")
        await pilot.pause()
        assert app.results == [first.entry_id]
        assert app.engine.session_file == old_path


async def test_hotkeys_screen_lists_the_bindings(tmp_path: Path) -> None:
    rows = [("ctrl+l", "Select model"), ("shift+tab", "Cycle thinking level")]
    app = HostApp(tmp_path, lambda _session: HotkeysScreen(rows))
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await wait_for_modal(pilot)
        table = screen.query_one(DataTable)
        assert table.row_count == 2
        assert [str(c) for c in table.get_row_at(1)] == ["shift+tab", "Cycle thinking level"]
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]


def test_fuzzy_filter_ranks_substring_and_word_starts_first() -> None:
    items = [(t, t) for t in ("openrouter/gpt-4o", "openai/gpt-4o", "anthropic/claude-sonnet-4", "xai/grok")]
    assert fuzzy_filter("openai", items)[0] == "openai/gpt-4o"
    assert fuzzy_filter("son4", items) == ["anthropic/claude-sonnet-4"]
    assert fuzzy_filter("zzz", items) == []
    assert fuzzy_filter("", items) == [t for t, _ in items]
