"""Streamed output is counted in bulk per chunk; the totals must equal a line-by-line count of the
whole text however it was split, and escape stripping must not depend on the chunking either."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from atomic.core.shell import StreamSanitizer, strip_ansi
from atomic.core.tools.output_tail import OutputTail

PIECES = st.sampled_from(["a", "line", "\n", "\n\n", "é", "日本", "🙂", "\t", " ", "xyz\n"])
TEXTS = st.lists(PIECES, max_size=60).map("".join)


def reference_counts(text: str) -> tuple[int, int, int]:
    """(total bytes, lines, bytes of the last line) computed naively on the whole text."""
    data = text.encode()
    if not data:
        return 0, 0, 0
    lines = text.split("\n")
    total_lines = len(lines) - 1 + (1 if lines[-1] else 0)
    last = lines[-1] if lines[-1] else (lines[-2] if len(lines) > 1 else "")
    return len(data), total_lines, len(last.encode())


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_bulk_counts_match_a_line_by_line_count(text: str, cuts: list[int]) -> None:
    tail = OutputTail(max_lines=3, max_bytes=16)
    bounds = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    for start, end in zip(bounds, bounds[1:], strict=False):
        tail.append(text[start:end])
    assert (tail.total_bytes, tail.total_lines, tail.last_line_bytes) == reference_counts(text)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.sampled_from(["plain ", "\x1b[31mred\x1b[0m", "\r", "é", "\x1b]0;title\x07", "\n", "\x00"]),
                   max_size=30),
    cut=st.integers(min_value=0, max_value=200),
)
def test_sanitizer_result_does_not_depend_on_chunking(parts: list[str], cut: int) -> None:
    data = "".join(parts).encode()
    cut = min(cut, len(data))
    sanitizer = StreamSanitizer()
    streamed = sanitizer.feed(data[:cut]) + sanitizer.feed(data[cut:]) + sanitizer.feed(b"", final=True)
    assert streamed == strip_ansi("".join(parts))


def test_lone_surrogate_is_counted_not_an_error() -> None:
    tail = OutputTail()
    tail.append("a\ud800\n")
    assert (tail.total_bytes, tail.total_lines) == (5, 1)
