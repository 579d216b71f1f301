"""Formatting helpers of the TUI: token counts, home-relative paths, the git branch."""

from __future__ import annotations

from pathlib import Path

from atomic.tui.formatting import format_tokens, read_git_branch, tilde_path


def test_token_formatting_and_paths(tmp_path: Path) -> None:
    assert [format_tokens(n) for n in (999, 1200, 12000, 1_200_000)] == ["999", "1.2k", "12k", "1.2M"]
    assert tilde_path(tmp_path / "a", home=tmp_path) == "~/a"
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "sub").mkdir()
    assert read_git_branch(tmp_path / "sub") == "feature/x"

