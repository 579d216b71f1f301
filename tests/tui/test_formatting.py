"""Formatting helpers of the TUI: token counts, home-relative paths, the git branch."""

from __future__ import annotations

from pathlib import Path

from atomic.tui.formatting import first_line, format_tokens, read_git_branch, tilde


def test_token_formatting_and_paths(tmp_path: Path) -> None:
    assert [format_tokens(n) for n in (999, 1200, 12000, 1_200_000)] == ["999", "1.2k", "12k", "1.2M"]
    assert tilde(tmp_path / "a", home=tmp_path) == "~/a"
    assert tilde(str(tmp_path), home=tmp_path) == "~"
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "sub").mkdir()
    assert read_git_branch(tmp_path / "sub") == "feature/x"


def test_one_token_format_for_the_footer_and_the_model_list() -> None:
    # The footer keeps a decimal below 10k and 10M; a model list of context windows does not need it.
    assert [format_tokens(n) for n in (8192, 1_000_000, 1_500_000)] == ["8.2k", "1.0M", "1.5M"]
    assert [format_tokens(n, whole=True) for n in (8192, 32768, 1_000_000, 1_500_000)] == ["8k", "33k", "1M", "1.5M"]


def test_first_line_skips_blank_lines_and_cuts() -> None:
    assert first_line("\n\n  hello world  \nsecond", 8) == "hello w…"
    assert first_line("   ") == ""
