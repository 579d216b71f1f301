"""Snapshots of the model, thinking and settings screens and the session picker (fixed data and clock)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from atomic.tui.screens.login_screen import LoginScreen
from atomic.tui.screens.model_picker import ModelPickerScreen
from atomic.tui.screens.session_picker import SessionPickerScreen
from atomic.tui.screens.settings_screen import SettingsScreen
from atomic.tui.screens.thinking_picker import ThinkingPickerScreen
from atomic.tui.screens.tree_screen import TreeScreen
from tests.tui_screens.host import HostApp, wait_for_modal, write_local_models

SIZE = (100, 30)
FIXED_NOW = 1_800_000_000.0


async def settle(pilot: Pilot[Any]) -> None:
    await wait_for_modal(pilot)
    await pilot.pause()


def write_fixed_sessions(engine: Any) -> None:
    """Three hand-written session files with fixed ids, contents and modification times."""
    folder = Path(engine.sessions.session_dir)
    folder.mkdir(parents=True, exist_ok=True)
    fixtures = [
        ("aaaa1111", "Fix the flaky login test", None, 5 * 60),
        ("bbbb2222", "Add a --json flag to the export command", "export json", 3 * 3600),
        ("cccc3333", "Explain how the compaction planner picks ranges", None, 9 * 86400),
    ]
    for session_id, first, name, age in fixtures:
        lines = [
            {"type": "session", "version": 3, "id": session_id, "timestamp": "2027-01-15T10:00:00.000Z",
             "cwd": "/work/demo"},
            {"type": "message", "id": session_id[:4] + "0001", "parentId": None,
             "timestamp": "2027-01-15T10:00:01.000Z", "message": {"role": "user", "content": first}},
        ]
        if name:
            lines.append({"type": "session_info", "id": session_id[:4] + "0002", "parentId": lines[-1]["id"],
                          "timestamp": "2027-01-15T10:00:02.000Z", "name": name})
        path = folder / f"2027-01-15T10-00-00-000Z_{session_id}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        os.utime(path, (FIXED_NOW - age, FIXED_NOW - age))


def test_model_picker_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    write_local_models()
    assert snap_compare(HostApp(tmp_path, ModelPickerScreen), terminal_size=SIZE, run_before=settle)


def test_model_picker_search_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    write_local_models()
    app = HostApp(tmp_path, lambda s: ModelPickerScreen(s, initial_query="think"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_thinking_picker_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(HostApp(tmp_path, ThinkingPickerScreen), terminal_size=SIZE, run_before=settle)


def test_settings_screen_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(HostApp(tmp_path, SettingsScreen), terminal_size=(100, 34), run_before=settle)


def test_settings_screen_light_theme_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    async def light(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        pilot.app.theme = "textual-light"
        await pilot.pause()

    assert snap_compare(HostApp(tmp_path, SettingsScreen), terminal_size=(100, 34), run_before=light)


def test_session_picker_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    app = HostApp(
        tmp_path,
        lambda s: SessionPickerScreen(s, now=lambda: FIXED_NOW),
        prepare=write_fixed_sessions,
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


async def branched_conversation(engine: Any) -> None:
    for text in ("Plan the refactor", "Now write the tests"):
        await engine.prompt(text)
        await engine.wait_idle()
    first_reply = engine.sessions.tree().roots[0].children[0].children[0].children[0].id
    await engine.sessions.navigate_to(first_reply)
    await engine.prompt("Write the docs instead")
    await engine.wait_idle()


def test_tree_screen_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    app = HostApp(tmp_path, TreeScreen, prepare=branched_conversation)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_login_screen_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(HostApp(tmp_path, LoginScreen), terminal_size=SIZE, run_before=settle)
