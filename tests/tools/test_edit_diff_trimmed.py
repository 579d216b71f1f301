"""The edit diff leaves the unchanged head and tail of a file out of difflib's matcher; the opcodes
must still describe the change exactly, and an ordinary edit renders as before."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from atomic.core.tools.edit_diff import _opcodes, compute_diff

LINES = st.lists(st.sampled_from(["a", "b", "c", "", "x = 1", "}"]), max_size=40)


@settings(max_examples=400, deadline=None)
@given(old=LINES, new=LINES)
def test_opcodes_rebuild_the_new_lines(old: list[str], new: list[str]) -> None:
    ops = _opcodes(old, new)
    rebuilt: list[str] = []
    i_pos = j_pos = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i_pos, j_pos)  # contiguous, in order
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        rebuilt.extend(new[j1:j2])
        i_pos, j_pos = i2, j2
    assert (i_pos, j_pos) == (len(old), len(new))
    assert rebuilt == new
    assert all(not (a[0] == b[0] == "equal") for a, b in zip(ops, ops[1:], strict=False))


def test_an_edit_deep_in_a_big_file_renders_like_the_full_matcher() -> None:
    old_lines = [f"line {i}: text" for i in range(3000)]
    new_lines = list(old_lines)
    new_lines[1500:1502] = ["line 1500: changed", "inserted"]
    new_lines.insert(2500, "another")
    full = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes()
    assert _opcodes(old_lines, new_lines) == full
    diff = compute_diff("\n".join(old_lines) + "\n", "\n".join(new_lines) + "\n")
    assert diff.first_changed_line == 1501
    assert "-1501 line 1500: text" in diff.diff.splitlines()
    assert "+1501 line 1500: changed" in diff.diff.splitlines()
