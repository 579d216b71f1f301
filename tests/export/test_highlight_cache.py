"""Highlighting a big export: one pygments formatter for the process, one lexer lookup per
language or kind of file, and repeated blocks highlighted once."""

from __future__ import annotations

from typing import Any

import pytest
from pygments import formatters, lexers

from atomic.core.export import markdown_render


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    markdown_render._formatter.cache_clear()
    markdown_render._lexer_for_language.cache_clear()
    markdown_render._highlight_cached.cache_clear()
    markdown_render._FILE_LEXERS.clear()


def test_one_formatter_and_one_lookup_per_language(monkeypatch: pytest.MonkeyPatch) -> None:
    made = {"formatters": 0, "by_name": 0, "by_file": 0}
    real_formatter = formatters.HtmlFormatter
    real_by_name = lexers.get_lexer_by_name
    real_by_file = lexers.get_lexer_for_filename

    def formatter(*args: Any, **kwargs: Any) -> Any:
        made["formatters"] += 1
        return real_formatter(*args, **kwargs)

    def by_name(*args: Any, **kwargs: Any) -> Any:
        made["by_name"] += 1
        return real_by_name(*args, **kwargs)

    def by_file(*args: Any, **kwargs: Any) -> Any:
        made["by_file"] += 1
        return real_by_file(*args, **kwargs)

    monkeypatch.setattr(formatters, "HtmlFormatter", formatter)
    monkeypatch.setattr(lexers, "get_lexer_by_name", by_name)
    monkeypatch.setattr(lexers, "get_lexer_for_filename", by_file)
    for index in range(20):
        assert '<span class="k">def</span>' in markdown_render.highlight_code(f"def f{index}(): pass\n", "python")
        assert '<span class="kd">const</span>' in markdown_render.highlight_code(
            f"const x{index} = 1;\n", filename="src/app.ts"
        )
        assert "<span" in markdown_render.highlight_code(f"x{index} = 1\n", filename="/abs/tool.py")
    assert made == {"formatters": 1, "by_name": 1, "by_file": 2}


def test_files_with_the_same_suffix_keep_their_own_lexer() -> None:
    cmake = markdown_render.highlight_code("project(demo)\n", filename="CMakeLists.txt")
    text = markdown_render.highlight_code("project(demo)\n", filename="notes.txt")
    assert cmake != text and "<span" in cmake


def test_unknown_languages_fall_back_to_escaping() -> None:
    assert markdown_render.highlight_code("<b>", "no-such-language") == "&lt;b&gt;"
    assert markdown_render.highlight_code("<b>", filename="notes.unknown-ext") == "&lt;b&gt;"


def test_a_repeated_block_is_highlighted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = markdown_render._highlight_with

    def counting(lexer: Any, code: str) -> str:
        calls["n"] += 1
        return real(lexer, code)

    monkeypatch.setattr(markdown_render, "_highlight_with", counting)
    first = markdown_render.highlight_code("print('same file read twice')\n", "python")
    again = markdown_render.highlight_code("print('same file read twice')\n", "python")
    assert first == again and calls["n"] == 1
