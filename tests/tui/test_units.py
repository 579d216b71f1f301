"""Pure helpers of the TUI: key table overrides, token formatting, git branch, fuzzy ranking."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.tui.completion import find_context, fuzzy_score, list_project_files
from atomic.tui.formatting import format_tokens, read_git_branch, tilde
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


def test_token_formatting_and_paths(tmp_path: Path) -> None:
    assert [format_tokens(n) for n in (999, 1200, 12000, 1_200_000)] == ["999", "1.2k", "12k", "1.2M"]
    assert tilde(tmp_path / "a", home=tmp_path) == "~/a"
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "sub").mkdir()
    assert read_git_branch(tmp_path / "sub") == "feature/x"


def test_completion_context_and_ranking(tmp_path: Path) -> None:
    assert find_context("/mo", 0, 3).kind == "slash"
    assert find_context("/model x", 0, 8) is None
    ctx = find_context("look at @src/ap", 0, 15)
    assert ctx is not None and ctx.kind == "file" and ctx.query == "src/ap" and ctx.start == (0, 8)
    assert fuzzy_score("mdl", "model") is not None and fuzzy_score("zz", "model") is None
    assert fuzzy_score("mod", "model") > fuzzy_score("mod", "some_module_thing")
    (tmp_path / "keep.py").write_text("")
    (tmp_path / "skip.log").write_text("")
    (tmp_path / ".gitignore").write_text("*.log\n")
    assert "keep.py" in list_project_files(tmp_path) and "skip.log" not in list_project_files(tmp_path)


def test_one_token_format_for_the_footer_and_the_model_list() -> None:
    # The footer keeps a decimal below 10k and 10M; a model list of context windows does not need it.
    assert [format_tokens(n) for n in (8192, 1_000_000, 1_500_000)] == ["8.2k", "1.0M", "1.5M"]
    assert [format_tokens(n, whole=True) for n in (8192, 32768, 1_000_000, 1_500_000)] == ["8k", "33k", "1M", "1.5M"]
