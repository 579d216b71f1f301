from __future__ import annotations

from atomic.core.resources.frontmatter import parse_frontmatter, strip_frontmatter


def test_simple_keys_and_quoted_values() -> None:
    text = "---\nname: demo\ndescription: \"Say \\\"hi\\\": now\"\nhint: 'it''s'\n---\nBody line\n"
    meta, body = parse_frontmatter(text)
    assert meta == {"name": "demo", "description": 'Say "hi": now', "hint": "it's"}
    assert body == "Body line\n"


def test_no_frontmatter_returns_whole_text() -> None:
    assert parse_frontmatter("# Title\ntext") == ({}, "# Title\ntext")


def test_unclosed_block_is_content() -> None:
    text = "---\nname: x\nno closing fence"
    assert parse_frontmatter(text) == ({}, text)


def test_crlf_and_value_with_colon() -> None:
    meta, body = parse_frontmatter("---\r\ndescription: Run: the tests\r\n---\r\nhello\r\n")
    assert meta == {"description": "Run: the tests"}
    assert body == "hello\n"


def test_block_and_continuation_values() -> None:
    text = (
        "---\n"
        "literal: |\n  line one\n  line two\n"
        "folded: >\n  first\n  second\n"
        "plain: starts here\n  and continues\n"
        "empty:\n"
        "---\nbody"
    )
    meta, body = parse_frontmatter(text)
    assert meta["literal"] == "line one\nline two"
    assert meta["folded"] == "first second"
    assert meta["plain"] == "starts here and continues"
    assert meta["empty"] == ""
    assert body == "body"


def test_strip_frontmatter() -> None:
    assert strip_frontmatter("---\na: b\n---\n\nText") == "\nText"
