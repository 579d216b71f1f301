"""Normalizer and reconstruction: examples plus property tests of the core invariants."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from atomic.core.compaction.normalize import collapse_to_ranges, keep_context_indices, normalize_ranges
from atomic.core.compaction.reconstruct import filtered_marker, find_prior_markers, reconstruct
from atomic.core.compaction.serialize import Transcript
from atomic.core.messages import TextContent, ToolResultMessage, UserMessage

MARKER = re.compile(r"^\(filtered (\d+) lines\)$")


# ----------------------------------------------------------------------------- normalize


def test_reversed_ranges_are_swapped() -> None:
    assert normalize_ranges([(9, 4)], 10) == [(4, 9)]


def test_out_of_range_is_clamped_and_fully_outside_dropped() -> None:
    assert normalize_ranges([(0, 3), (8, 99), (50, 60)], 10) == [(1, 3), (8, 10)]


def test_overlapping_and_adjacent_ranges_merge_after_sorting() -> None:
    assert normalize_ranges([(7, 9), (1, 3), (2, 5), (6, 6), (12, 14)], 20) == [(1, 9), (12, 14)]


def test_ranges_are_split_around_protected_lines() -> None:
    assert normalize_ranges([(1, 10)], 10, protected={1, 4, 5, 10}) == [(2, 3), (6, 9)]


def test_range_covering_only_protected_lines_vanishes() -> None:
    assert normalize_ranges([(4, 5)], 10, protected={4, 5}) == []


def test_empty_transcript_has_no_ranges() -> None:
    assert normalize_ranges([(1, 3)], 0) == []


def test_collapse_to_ranges() -> None:
    assert collapse_to_ranges([5, 1, 2, 3, 9, 10]) == [(1, 3), (5, 5), (9, 10)]


def test_keep_context_block_protects_tags_and_body_in_eligible_lines() -> None:
    lines = ["[User]: <keepContext>", "secret", "  </keepContext>  ", "after"]
    assert keep_context_indices(lines, [True] * 4) == {0, 1, 2}


def test_keep_context_is_inert_in_ineligible_lines_and_needs_whole_line_tags() -> None:
    lines = ["<keepContext>", "x", "</keepContext>", "see <keepContext> inline", "y"]
    assert keep_context_indices(lines, [False] * 5) == set()
    assert keep_context_indices(lines[3:], [True, True]) == set()


def test_unclosed_keep_context_stops_at_ineligible_line() -> None:
    lines = ["<keepContext>", "a", "tool output", "b"]
    assert keep_context_indices(lines, [True, True, False, True]) == {0, 1}


def test_stray_closing_tag_is_ordinary_text() -> None:
    assert keep_context_indices(["</keepContext>", "a"], [True, True]) == set()


# ----------------------------------------------------------------------------- reconstruct


def test_reconstruct_replaces_each_span_with_one_marker() -> None:
    lines = [f"l{i}" for i in range(1, 11)]
    rebuilt = reconstruct(lines, [(2, 4), (7, 7)])
    assert rebuilt.text.split("\n") == [
        "l1",
        "(filtered 3 lines)",
        "l5",
        "l6",
        "(filtered 1 lines)",
        "l8",
        "l9",
        "l10",
    ]
    stats = rebuilt.stats
    assert (stats.lines_before, stats.lines_deleted, stats.lines_kept, stats.range_count) == (10, 4, 6, 2)


def test_reconstruct_without_ranges_is_identity() -> None:
    text = "a\n\nb\r\n  c  "
    assert reconstruct(text.split("\n"), []).text == text


def test_swallowed_prior_marker_adds_its_count() -> None:
    lines = ["keep", "x", "(filtered 40 lines)", "y", "tail"]
    rebuilt = reconstruct(lines, [(2, 4)], prior_markers=find_prior_markers(lines))
    assert rebuilt.text == "keep\n(filtered 42 lines)\ntail"
    assert rebuilt.stats.original_lines_filtered == 42


def test_prior_markers_touching_a_new_span_fold_into_it() -> None:
    lines = ["(filtered 5 lines)", "(filtered 2 lines)", "x", "(filtered 3 lines)", "keep"]
    rebuilt = reconstruct(lines, [(3, 3)], prior_markers=find_prior_markers(lines))
    assert rebuilt.text == "(filtered 11 lines)\nkeep"
    assert rebuilt.ranges == [(1, 4)]


def test_prior_marker_not_touching_any_span_stays_verbatim() -> None:
    lines = ["(filtered 5 lines)", "keep", "x"]
    rebuilt = reconstruct(lines, [(3, 3)], prior_markers=find_prior_markers(lines))
    assert rebuilt.text == "(filtered 5 lines)\nkeep\n(filtered 1 lines)"


def test_reconstruct_never_removes_protected_lines_even_if_asked() -> None:
    rebuilt = reconstruct(["a", "b", "c"], [(1, 3)], protected={2})
    assert rebuilt.text == "(filtered 1 lines)\nb\n(filtered 1 lines)"


def test_marker_grammar_is_always_plural() -> None:
    assert filtered_marker(1) == "(filtered 1 lines)"


def test_protected_marker_is_not_folded() -> None:
    lines = ["x", "(filtered 3 lines)"]
    rebuilt = reconstruct(lines, [(1, 1)], prior_markers={2: 3}, protected={2})
    assert rebuilt.text == "(filtered 1 lines)\n(filtered 3 lines)"


# ----------------------------------------------------------------------------- properties

line_text = st.one_of(
    st.sampled_from(["", "<keepContext>", "</keepContext>", "[User]: hi", "(filtered 3 lines)", "  "]),
    st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=12),
)
raw_ranges = st.lists(st.tuples(st.integers(-5, 60), st.integers(-5, 60)), max_size=12)


def _expand(
    rebuilt_lines: list[str], original: list[str], markers: dict[int, int], spans: list[tuple[int, int]]
):
    """Walk the output against the original to check order, identity and marker arithmetic."""
    out = iter(rebuilt_lines)
    line = 1
    span_iter = iter(spans)
    next_span = next(span_iter, None)
    while line <= len(original):
        produced = next(out)
        if next_span and next_span[0] == line:
            start, end = next_span
            expected = sum(markers.get(n, 1) for n in range(start, end + 1))
            assert produced == f"(filtered {expected} lines)"
            line = end + 1
            next_span = next(span_iter, None)
        else:
            assert produced == original[line - 1]
            line += 1
    assert next(out, None) is None


@settings(max_examples=400, deadline=None)
@given(st.lists(line_text, min_size=1, max_size=50), raw_ranges, st.sets(st.integers(1, 50), max_size=10))
def test_reconstruction_invariants(lines: list[str], raw, extra_protected: set[int]) -> None:
    protected = {n for n in extra_protected if n <= len(lines)}
    markers = find_prior_markers(lines)
    ranges = normalize_ranges(raw, len(lines), protected)

    # Normalized ranges: sorted, disjoint, in bounds, never protected.
    for (_s1, e1), (s2, _e2) in zip(ranges, ranges[1:], strict=False):
        assert e1 < s2
    for start, end in ranges:
        assert 1 <= start <= end <= len(lines)
        assert not protected & set(range(start, end + 1))

    rebuilt = reconstruct(lines, ranges, prior_markers=markers, protected=protected)
    out_lines = rebuilt.text.split("\n")
    # Every normalized range is contained in a final span (spans only grow by folding markers).
    for start, end in ranges:
        assert any(s <= start and end <= e for s, e in rebuilt.ranges)
    # Output = original with each span replaced by a correctly counted marker.
    _expand(out_lines, lines, markers, rebuilt.ranges)
    # Protected lines survive; the kept lines are exactly the undeleted originals, in order.
    deleted = {n for s, e in rebuilt.ranges for n in range(s, e + 1)}
    assert protected.isdisjoint(deleted)
    kept = [lines[n - 1] for n in range(1, len(lines) + 1) if n not in deleted]
    assert len(out_lines) == len(kept) + len(rebuilt.ranges)
    # Stats add up.
    st_ = rebuilt.stats
    assert st_.lines_deleted + st_.lines_kept == st_.lines_before == len(lines)
    assert st_.range_count == len(rebuilt.ranges)
    assert st_.original_lines_filtered == sum(markers.get(n, 1) for n in deleted)


def _original_count(text: str) -> int:
    """Lines of the ORIGINAL transcript a compacted text stands for."""
    total = 0
    for line in text.split("\n"):
        match = MARKER.match(line)
        total += int(match.group(1)) if match else 1
    return total


@settings(max_examples=200, deadline=None)
@given(
    st.lists(line_text.filter(lambda s: not MARKER.match(s)), min_size=1, max_size=40), raw_ranges, raw_ranges
)
def test_nested_recompaction_keeps_original_line_count(lines: list[str], first, second) -> None:
    original = "\n".join(lines)
    once = reconstruct(lines, normalize_ranges(first, len(lines))).text
    assert _original_count(once) == len(lines)

    again = Transcript.from_text(once)
    twice = reconstruct(
        again.lines,
        normalize_ranges(second, again.total, again.protected),
        prior_markers=again.prior_markers,
        protected=again.protected,
    ).text
    assert _original_count(twice) == len(lines)
    # Lines kept twice are still byte-identical original lines, in order.
    survivors = [ln for ln in twice.split("\n") if not MARKER.match(ln)]
    it = iter(original.split("\n"))
    assert all(any(candidate == ln for candidate in it) for ln in survivors)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["user", "tool"]), min_size=1, max_size=8),
    st.lists(st.sampled_from(["a", "", "<keepContext>", "</keepContext>", "b"]), min_size=0, max_size=6),
    raw_ranges,
)
def test_keep_context_blocks_and_separators_survive_any_records(kinds, body, raw) -> None:
    text = "\n".join(["<keepContext>", *body, "</keepContext>"])
    messages = [
        UserMessage(content=text)
        if kind == "user"
        else ToolResultMessage(tool_call_id="c", tool_name="t", content=[TextContent(text=text)])
        for kind in kinds
    ]
    transcript = Transcript.from_messages(messages)

    # Independently computed lines that must survive: every separator, and in user sections the
    # opening tag through the first closing tag.
    must_keep: set[int] = set()
    section_len = len(text.split("\n"))
    first_close = 1 + (body.index("</keepContext>") if "</keepContext>" in body else len(body))
    for position, kind in enumerate(kinds):
        start = 1 + position * (section_len + 1)
        if position:
            must_keep.add(start - 1)
        if kind == "user":
            must_keep.update(range(start, start + first_close + 1))
    assert must_keep <= transcript.protected

    ranges = normalize_ranges(raw, transcript.total, transcript.protected)
    rebuilt = reconstruct(
        transcript.lines, ranges, prior_markers=transcript.prior_markers, protected=transcript.protected
    )
    deleted = {n for s, e in rebuilt.ranges for n in range(s, e + 1)}
    assert must_keep.isdisjoint(deleted)
    out = rebuilt.text.split("\n")
    assert out.count("[User]: <keepContext>") == kinds.count("user")
    # Tool-result tags are not protected: a range covering a whole tool section deletes it.
    if "tool" in kinds:
        position = kinds.index("tool")
        start = 1 + position * (section_len + 1)
        full = reconstruct(
            transcript.lines,
            normalize_ranges([(start, start + section_len - 1)], transcript.total, transcript.protected),
        )
        assert full.stats.lines_deleted == section_len
