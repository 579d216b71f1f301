"""Key bindings: keybindings.json overrides, and an override taking effect in the running app."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.binding import Binding

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
        before = app.engine.models.thinking_level
        await pilot.press("ctrl+y")
        assert app.engine.models.thinking_level != before



def test_docs_tui_lists_every_key() -> None:
    """Every key id of the app and the editor, and every approval card key, is in docs/tui.md."""
    from atomic.tui.approval_card import ApprovalCard
    from atomic.tui.keybindings import APP_KEYS, EDITOR_KEYS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "tui.md").read_text(encoding="utf-8")
    missing = [spec.id for spec in (*APP_KEYS, *EDITOR_KEYS) if f"`{spec.id}`" not in doc]
    assert missing == []
    approvals = doc[doc.index("## Approvals") :].lower()
    for binding in ApprovalCard.BINDINGS:
        key = binding.key if isinstance(binding, Binding) else binding[0]
        spelled = {"escape": "esc"}.get(key, key)
        assert re.search(rf"^\| [^|\n]*\b{spelled}\b[^|\n]*\|", approvals, re.MULTILINE), key
