from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from atomic.core.tools.output_tail import OutputTail
from atomic.core.tools.truncate import (
    format_size,
    tail_notice,
    truncate_head,
    truncate_line,
    truncate_tail,
)


def test_format_size_units() -> None:
    assert format_size(512) == "512B"
    assert format_size(51200) == "50.0KB"
    assert format_size(3 * 1024 * 1024 // 2) == "1.5MB"


def test_head_keeps_first_lines_by_line_limit() -> None:
    text = "\n".join(f"line {i}" for i in range(1, 11))
    result = truncate_head(text, max_lines=3)
    assert result.content == "line 1\nline 2\nline 3"
    assert (result.truncated, result.truncated_by, result.total_lines, result.output_lines) == (True, "lines", 10, 3)


def test_head_stops_at_byte_limit_on_whole_lines() -> None:
    result = truncate_head("aaaa\nbbbb\ncccc", max_bytes=9)
    assert result.content == "aaaa\nbbbb"
    assert result.truncated_by == "bytes"
    assert result.output_bytes == 9


def test_head_reports_a_first_line_over_the_limit() -> None:
    result = truncate_head("x" * 100 + "\nshort", max_bytes=50)
    assert result.first_line_exceeds_limit and result.content == ""


def test_tail_keeps_last_lines_and_partial_giant_line() -> None:
    assert truncate_tail("a\nb\nc\nd", max_lines=2).content == "c\nd"
    giant = truncate_tail("start\n" + "é" * 100, max_bytes=51)
    assert giant.last_line_partial
    assert giant.content == "é" * 25  # 50 bytes: never half a character
    assert giant.output_bytes == 50


def test_truncate_line() -> None:
    assert truncate_line("abc", 5) == ("abc", False)
    assert truncate_line("x" * 600) == ("x" * 500 + "... [truncated]", True)


def test_output_tail_counts_everything_but_keeps_the_end() -> None:
    tail = OutputTail(max_lines=5, max_bytes=1000)
    for i in range(1, 5001):
        tail.append(f"line {i}\n")
    snap = tail.snapshot()
    assert snap.truncated and snap.truncated_by == "lines"
    assert snap.total_lines == 5000
    assert snap.content == "\n".join(f"line {i}" for i in range(4996, 5001))
    assert tail_notice(snap, "/tmp/x.log") == "\n\n[Showing lines 4996-5000 of 5000. Full output: /tmp/x.log]"


def test_tail_notice_for_byte_limit_and_partial_line() -> None:
    tail = OutputTail(max_lines=100, max_bytes=21)
    tail.append("0123456789\nabcdefghij\nklmnopqrst\n")
    snap = tail.snapshot()
    assert snap.content == "abcdefghij\nklmnopqrst"
    assert "[Showing lines 2-3 of 3 (21B limit). Full output: p]" in tail_notice(snap, "p")

    tail = OutputTail(max_lines=100, max_bytes=10)
    tail.append("y" * 30)
    snap = tail.snapshot()
    assert tail_notice(snap, "p", tail.last_line_bytes) == (
        "\n\n[Showing last 10B of line 1 (line is 30B). Full output: p]"
    )


_texts = st.lists(st.text(alphabet=st.sampled_from("ab é\n"), max_size=40), max_size=30).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(text=_texts, max_lines=st.integers(1, 8), max_bytes=st.integers(1, 60))
def test_truncation_respects_limits_and_keeps_the_right_end(text: str, max_lines: int, max_bytes: int) -> None:
    head = truncate_head(text, max_lines, max_bytes)
    tail = truncate_tail(text, max_lines, max_bytes)
    for result in (head, tail):
        assert len(result.content.encode()) <= max_bytes or not result.truncated
        assert result.output_lines <= max_lines or not result.truncated
        assert result.total_lines == len(text.split("\n"))
        if not result.truncated:
            assert result.content == text
    assert text.startswith(head.content)
    assert text.endswith(tail.content)
