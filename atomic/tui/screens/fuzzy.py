"""A small fuzzy matcher for the pickers: every query word must appear in order (as a subsequence).

Scores favour contiguous runs and matches at word starts, so `son4` ranks `claude-sonnet-4` above
an id that merely contains those letters far apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD_BREAKS = frozenset(" -_/.:[]()")


def _word_score(word: str, text: str) -> int | None:
    """Score of one query word against lower-cased text, or None when it does not match."""
    if not word:
        return 0
    direct = text.find(word)
    if direct >= 0:
        # A literal substring is the strongest signal; earlier and at a word start is better.
        at_start = direct == 0 or text[direct - 1] in _WORD_BREAKS
        return 100 + len(word) * 4 + (30 if at_start else 0) - min(direct, 30)
    score = 0
    position = 0
    previous = -2
    for char in word:
        found = text.find(char, position)
        if found < 0:
            return None
        if found == previous + 1:
            score += 5
        if found == 0 or text[found - 1] in _WORD_BREAKS:
            score += 3
        score += 1
        previous = found
        position = found + 1
    return score


def fuzzy_score(query: str, text: str) -> int | None:
    """Total score of a query (space-separated words, all required) against text; None = no match."""
    haystack = text.lower()
    total = 0
    for word in query.lower().split():
        score = _word_score(word, haystack)
        if score is None:
            return None
        total += score
    return total


def fuzzy_filter(query: str, items: Sequence[tuple[str, T]]) -> list[T]:
    """Items whose search text matches, best first; the original order is kept for an empty query."""
    if not query.strip():
        return [item for _, item in items]
    scored: list[tuple[int, int, T]] = []
    for index, (text, item) in enumerate(items):
        score = fuzzy_score(query, text)
        if score is not None:
            scored.append((-score, index, item))
    scored.sort(key=lambda entry: (entry[0], entry[1]))
    return [item for _, _, item in scored]
