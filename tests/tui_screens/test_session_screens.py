"""Session picker, tree and login screens over a real engine session."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList

from atomic.tui.screens import EDITOR_PREFIX
from atomic.tui.screens.login_screen import LoginScreen
from atomic.tui.screens.session_picker import SessionPickerScreen
from atomic.tui.screens.tree_screen import TreeScreen
from atomic.tui.screens.tree_view import build_rows
from tests.tui_screens.host import HostApp, agent_dir, wait_for_modal


async def say(session: Any, *texts: str) -> None:
    for text in texts:
        await session.prompt(text)
        await session.wait_idle()


async def two_sessions(session: Any) -> None:
    await say(session, "hello from the older session")
    older = session.store.path
    await session.new_session()
    await say(session, "the newer session")
    os.utime(older, (1_700_000_000, 1_700_000_000))
    session.older_path = older


async def test_session_picker_lists_newest_first_and_switches(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SessionPickerScreen, prepare=two_sessions)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        older = str(app.session.older_path)
        ids = [o.id for o in screen.query_one(OptionList).options]
        assert ids == [str(app.session.store.path), older]
        await pilot.press(*"older", "enter")
        await pilot.pause()
    assert str(app.session.store.path) == older
    assert app.session.get_fork_messages()[0]["text"] == "hello from the older session"
    assert app.results == ["Resumed: hello from the older session"]


async def test_session_picker_tab_shows_all_folders(tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()

    async def prepare(session: Any) -> None:
        await say(session, "here")
        from atomic.core.engine.factory import create_session
        from atomic.core.engine.options import SessionOptions
        from atomic.core.providers.scripted import ScriptedProvider

        elsewhere = await create_session(SessionOptions(cwd=other, scripted=ScriptedProvider([])))
        await say(elsewhere, "in another folder")

    app = HostApp(tmp_path, SessionPickerScreen, prepare=prepare)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        assert len(screen.query_one(OptionList).options) == 1
        await pilot.press("tab")
        assert len(screen.query_one(OptionList).options) == 2
        await pilot.press("tab")
        assert len(screen.query_one(OptionList).options) == 1


async def test_tree_navigation_moves_the_leaf_and_returns_user_text(tmp_path: Path) -> None:
    app = HostApp(tmp_path, TreeScreen, prepare=lambda s: say(s, "one", "two"))
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        option_list = screen.query_one(OptionList)
        rows = screen.rows
        # The current leaf (the last reply) starts highlighted.
        assert option_list.highlighted_option.id == app.session.store.leaf_id
        first_user = next(r for r in rows if r.text == "user: one")
        user_entry = app.session.store.by_id[first_user.entry_id]
        option_list.highlighted = rows.index(first_user)
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [EDITOR_PREFIX + "one"]
    # Continuing from a user message puts the leaf on its parent, so resending makes a branch.
    assert app.session.store.leaf_id == user_entry.parent_id
    assert app.session.get_fork_messages() == []


async def test_tree_label_and_filter(tmp_path: Path) -> None:
    app = HostApp(tmp_path, TreeScreen, prepare=lambda s: say(s, "one"))
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        leaf = app.session.store.leaf_id
        await pilot.press("l", *"checkpoint", "enter")
        await pilot.pause()
        labelled = [n for n in _walk(app.session.get_tree()["tree"]) if n.get("label")]
        assert [(n["entry"]["id"], n["label"]) for n in labelled] == [(leaf, "checkpoint")]
        # The label entry joins the chain right after the old position; the conversation is unchanged.
        label_entry = app.session.store.by_id[app.session.store.leaf_id]
        assert label_entry.type == "label" and label_entry.parent_id == leaf
        await pilot.press("f")  # no-tools
        await pilot.press("f")  # user-only
        assert [r.text for r in screen.rows] == ["user: one"]
        await pilot.press("f")  # labeled-only
        assert [r.entry_id for r in screen.rows] == [leaf]
        assert screen.query_one("#tree-label", Input).display is False


def _walk(nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out, stack = [], list(nodes)
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node["children"])
    return out


def test_tree_rows_indent_only_at_branch_points() -> None:
    def node(entry_id: str, text: str, *children: dict[str, Any]) -> dict[str, Any]:
        message = {"role": "user", "content": text}
        return {"entry": {"type": "message", "id": entry_id, "message": message}, "children": list(children)}

    tree = {"tree": [node("a", "root", node("b", "left", node("c", "left2")), node("d", "right"))], "leafId": "d"}
    rows = build_rows(tree)
    assert [(r.prefix, r.text) for r in rows] == [
        ("", "user: root"),
        ("├─ ", "user: left"),
        ("│  ", "user: left2"),
        ("└─ ", "user: right"),
    ]
    assert [r.on_path for r in rows] == [True, False, False, True]


async def test_login_stores_the_key_with_private_permissions(tmp_path: Path) -> None:
    app = HostApp(tmp_path, LoginScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press(*"anthropic", "enter")
        key_input = screen.query_one("#login-key", Input)
        assert key_input.password and key_input.has_focus
        await pilot.press(*"sk-test-123", "enter")
        await pilot.pause()
    auth_file = agent_dir() / "auth.json"
    assert json.loads(auth_file.read_text())["anthropic"]["key"] == "sk-test-123"
    assert stat.S_IMODE(auth_file.stat().st_mode) == 0o600
    (result,) = app.results
    assert result.startswith("note:Logged in to anthropic. Using ")  # shown as a line in the conversation
    assert "sk-test-123" not in result
    assert app.session.registry.auth_status("anthropic")["source"] == "stored"
    assert app.session.model.provider == "anthropic"  # the provider's default model, at once


async def test_login_escape_goes_back_then_logout_removes_the_key(tmp_path: Path) -> None:
    app = HostApp(tmp_path, LoginScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press(*"openai", "enter", "escape")
        assert screen.query_one(OptionList).display
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]

    app.session.login_provider("openai", "sk-x")
    logout = HostApp(tmp_path, lambda s: LoginScreen(s, mode="logout"))
    async with logout.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        assert [o.id for o in screen.query_one(OptionList).options] == ["openai"]
        await pilot.press("enter")
        await pilot.pause()
    (result,) = logout.results
    assert result.startswith("note:Logged out of openai: its stored key is removed.")
    assert "openai" not in json.loads((agent_dir() / "auth.json").read_text())
