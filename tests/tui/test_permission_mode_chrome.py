"""The permission mode is always on screen: the footer names it (and yolo colours the editor's border),
F2 says where the cycle goes, and a mode saved for later sessions is announced at start."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, wait_for


def project() -> Path:
    root = Path(os.environ["HOME"]) / "project"
    root.mkdir(parents=True, exist_ok=True)
    return root


def footer_text(app: AtomicApp) -> str:
    return str(app.footer.render())


@pytest.mark.parametrize("mode", ["ask", "accept-edits", "yolo"])
def test_footer_with_each_permission_mode(snap_compare: Any, mode: str) -> None:
    app = make_app(project(), [], permission_mode=mode)
    assert snap_compare(app, terminal_size=(90, 12))


async def test_the_footer_and_the_editor_follow_every_change_of_mode(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [], permission_mode="ask")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        assert "ask before commands and edits (f2)" in footer_text(app)
        assert not app.editor.has_class("-yolo")
        await pilot.press("f2")
        await wait_for(lambda: "edits allowed, commands asked" in footer_text(app), pilot)
        messages = [n.message for n in app._notifications]
        assert "Permission mode: ask → accept-edits (saved) · f2 again: yolo" in messages
        await pilot.press("f2")
        await wait_for(lambda: "yolo: nothing asked" in footer_text(app), pilot)
        assert app.editor.has_class("-yolo")
        app.editor.insert("/permissions ask")
        await pilot.press("enter")
        await wait_for(lambda: "ask before commands and edits" in footer_text(app), pilot)
        assert not app.editor.has_class("-yolo")


async def test_a_saved_mode_is_announced_at_start(tmp_path: Path) -> None:
    agent_dir = Path(os.environ["ATOMIC_CODING_AGENT_DIR"])
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "settings.json").write_text(json.dumps({"permissionMode": "accept-edits"}))
    app = make_app(tmp_path / "p", [])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        header = app.conversation.children[0]
        assert "[Permissions] accept-edits (saved for every session" in str(header.render())
        assert "edits allowed, commands asked" in footer_text(app)


async def test_the_startup_line_keeps_its_bracketed_labels(tmp_path: Path) -> None:
    agent_dir = Path(os.environ["ATOMIC_CODING_AGENT_DIR"])
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "AGENTS.md").write_text("Be brief.\n")  # the user's own: loaded without a trust question
    app = make_app(tmp_path / "p", [])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        header = str(app.conversation.children[0].render())
        assert "[Context] " in header and "AGENTS.md" in header


@pytest.mark.parametrize("width", [60, 80, 120])
async def test_the_footer_keeps_the_model_id_at_every_width(tmp_path: Path, width: int) -> None:
    app = make_app(tmp_path / "a-rather-long-project-folder-name", [], permission_mode="accept-edits")
    async with app.run_test(size=(width, 20)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        app.footer.set_extension_statuses({"x": "a status that an extension shows " * 3})
        await pilot.pause()
        text = footer_text(app)
        assert "scripted-model" in text and "edits allowed" in text
        assert app.footer.size.height >= len(text.splitlines())  # nothing cut off


async def test_a_theme_picked_in_the_palette_is_saved(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [])
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        app.theme = "nord"  # what the F1 palette's "Change theme" does
        await pilot.pause()
        assert app.engine.settings.theme == "nord"
        app.theme = "atomic-light"
        await pilot.pause()
        assert app.engine.settings.theme == "light"
    again = make_app(tmp_path / "p", [])
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: again.session_ready, pilot)
        assert again.theme == "atomic-light"
