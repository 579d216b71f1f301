"""Key bindings: keybindings.json overrides, and an override taking effect in the running app."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.tui.keybindings import KeyTable, load_overrides, normalize_key
from tests.tui.helpers import make_app


def test_keybindings_json_overrides_keys(tmp_path: Path) -> None:
    (tmp_path / "keybindings.json").write_text(
        json.dumps({"app.model.select": "shift+ctrl+k", "tui.input.newLine": ["ctrl+j"], "nope": "x"})
    )
    overrides, warnings = load_overrides(tmp_path)
    table = KeyTable(overrides)
    assert table.keys_for("app.model.select") == ("ctrl+shift+k",)
    assert table.editor_action_for("shift+enter") is None and table.editor_action_for("ctrl+j") == "newline"
    assert any("nope" in w for w in warnings)
    assert normalize_key("esc") == "escape"


async def test_keybinding_override_applies_in_the_app(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "keybindings.json").write_text(json.dumps({"app.thinking.cycle": "ctrl+y"}))
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.session.thinking_level
        await pilot.press("ctrl+y")
        assert app.session.thinking_level != before

