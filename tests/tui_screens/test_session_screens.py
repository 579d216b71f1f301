"""Session picker, tree and login screens over a real engine session: what each returns (applied in
tests/tui/test_slash_commands.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from textual.widgets import Input, OptionList

from atomic.core.contract import SessionTree, TreeNode
from atomic.tui.screens.login_screen import LoginChoice, LoginScreen
from atomic.tui.screens.session_picker import SessionChoice, SessionPickerScreen
from atomic.tui.screens.tree_screen import TreeChoice, TreeScreen
from atomic.tui.screens.tree_view import build_rows
from tests.tui_screens.host import HostApp, agent_dir, wait_for_modal


async def say(engine: Any, *texts: str) -> None:
    for text in texts:
        await engine.prompt(text)
        await engine.wait_idle()


async def two_sessions(engine: Any) -> None:
    await say(engine, "hello from the older session")
    older = engine.session_file
    await engine.sessions.new_session()
    await say(engine, "the newer session")
    os.utime(older, (1_700_000_000, 1_700_000_000))
    engine.older_path = older


async def test_session_picker_lists_newest_first_and_returns_the_choice(tmp_path: Path) -> None:
    app = HostApp(tmp_path, SessionPickerScreen, prepare=two_sessions)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        older = str(app.engine.older_path)
        ids = [o.id for o in screen.query_one(OptionList).options]
        assert ids == [str(app.engine.session_file), older]
        await pilot.press(*"older", "enter")
        await pilot.pause()
    assert app.results == [SessionChoice(older, "hello from the older session")]
    assert str(app.engine.session_file) != older


async def test_session_picker_tab_shows_all_folders(tmp_path: Path) -> None:
    other = tmp_path / "other-project"
    other.mkdir()

    async def prepare(engine: Any) -> None:
        await say(engine, "here")
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


async def test_tree_returns_the_chosen_entry(tmp_path: Path) -> None:
    app = HostApp(tmp_path, TreeScreen, prepare=lambda s: say(s, "one", "two"))
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        option_list = screen.query_one(OptionList)
        rows = screen.rows
        # The current leaf (the last reply) starts highlighted.
        assert option_list.highlighted_option.id == app.engine.sessions.tree().leaf_id
        first_user = next(r for r in rows if r.text == "user: one")
        leaf = app.engine.sessions.tree().leaf_id
        option_list.highlighted = rows.index(first_user)
        await pilot.press("enter")
        await pilot.pause()
    assert app.results == [TreeChoice(first_user.entry_id)]
    assert app.engine.sessions.tree().leaf_id == leaf


async def test_tree_label_and_filter(tmp_path: Path) -> None:
    app = HostApp(tmp_path, TreeScreen, prepare=lambda s: say(s, "one"))
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        leaf = app.engine.sessions.tree().leaf_id
        await pilot.press("l", *"checkpoint", "enter")
        await pilot.pause()
        tree = app.engine.sessions.tree()
        labelled = [n for n in _walk(tree.roots) if n.label]
        assert [(n.id, n.label) for n in labelled] == [(leaf, "checkpoint")]
        # The label entry joins the chain right after the old position; the conversation is unchanged.
        (label_entry,) = [n.entry for n in _walk(tree.roots) if n.id == tree.leaf_id]
        assert label_entry["type"] == "label" and label_entry["parentId"] == leaf
        await pilot.press("f")  # no-tools
        await pilot.press("f")  # user-only
        assert [r.text for r in screen.rows] == ["user: one"]
        await pilot.press("f")  # labeled-only
        assert [r.entry_id for r in screen.rows] == [leaf]
        assert screen.query_one("#tree-label", Input).display is False


def _walk(nodes: tuple[TreeNode, ...]) -> list[TreeNode]:
    out, stack = [], list(nodes)
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(node.children)
    return out


def test_tree_rows_indent_only_at_branch_points() -> None:
    def node(entry_id: str, text: str, *children: TreeNode) -> TreeNode:
        message = {"role": "user", "content": text}
        return TreeNode({"type": "message", "id": entry_id, "message": message}, children, None, None)

    tree = SessionTree((node("a", "root", node("b", "left", node("c", "left2")), node("d", "right")),), "d")
    rows = build_rows(tree)
    assert [(r.prefix, r.text) for r in rows] == [
        ("", "user: root"),
        ("├─ ", "user: left"),
        ("│  ", "user: left2"),
        ("└─ ", "user: right"),
    ]
    assert [r.on_path for r in rows] == [True, False, False, True]


async def test_login_asks_for_the_key_in_a_password_box(tmp_path: Path) -> None:
    app = HostApp(tmp_path, LoginScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press(*"anthropic", "enter")
        key_input = screen.query_one("#login-key", Input)
        assert key_input.password and key_input.has_focus
        await pilot.press(*"sk-test-123", "enter")
        await pilot.pause()
    assert app.results == [LoginChoice("anthropic", "sk-test-123")]
    assert not (agent_dir() / "auth.json").exists()


async def test_login_escape_goes_back_and_logout_lists_stored_keys(tmp_path: Path) -> None:
    app = HostApp(tmp_path, LoginScreen)
    async with app.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        await pilot.press(*"openai", "enter", "escape")
        assert screen.query_one(OptionList).display
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
    assert app.results == [None]

    app.engine.models.login_provider("openai", "sk-x")
    logout = HostApp(tmp_path, lambda s: LoginScreen(s, mode="logout"))
    async with logout.run_test(size=(110, 30)) as pilot:
        screen = await wait_for_modal(pilot)
        assert [o.id for o in screen.query_one(OptionList).options] == ["openai"]
        await pilot.press("enter")
        await pilot.pause()
    assert logout.results == [LoginChoice("openai")]
