"""Text replacement and diff rendering behind the `edit` tool (also used by the TUI and export).

The diff format is the compact one pi shows: `+NN text` for added lines (new line numbers),
`-NN text` for removed lines (old line numbers), ` NN text` for context, 4 context lines around each
change, and a `...` line where unchanged lines were skipped.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

DIFF_CONTEXT_LINES = 4


class EditApplyError(Exception):
    """An edit that cannot be applied; the message is written for the model."""


@dataclass
class TextEdit:
    old_text: str
    new_text: str


@dataclass
class DiffResult:
    diff: str
    first_changed_line: int | None


# --------------------------------------------------------------------------- line endings and BOM


def detect_line_ending(text: str) -> str:
    """`\\r\\n` when the first line break in the text is CRLF, else `\\n`."""
    first_lf = text.find("\n")
    if first_lf > 0 and text[first_lf - 1] == "\r":
        return "\r\n"
    return "\n"


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def restore_line_endings(text: str, ending: str) -> str:
    return text.replace("\n", "\r\n") if ending == "\r\n" else text


def split_bom(text: str) -> tuple[str, str]:
    return ("\ufeff", text[1:]) if text.startswith("\ufeff") else ("", text)


# --------------------------------------------------------------------------- matching

_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


def normalize_for_fuzzy_match(text: str) -> str:
    """Forgive what models commonly get wrong: Unicode forms, trailing spaces, smart punctuation."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def _count_non_overlapping(haystack: str, needle: str) -> int:
    return haystack.count(needle) if needle else 0


def apply_edits(content: str, edits: list[TextEdit], path: str) -> tuple[str, str]:
    """Apply every edit to LF-normalised `content`; returns (base content, new content).

    All edits are located in the original text (not one after another), must each match exactly
    once and must not overlap. When some edit only matches after fuzzy normalisation, the whole
    file is matched and rewritten in normalised form, so positions stay consistent.
    """
    single = len(edits) == 1
    normalized = [TextEdit(normalize_to_lf(e.old_text), normalize_to_lf(e.new_text)) for e in edits]
    for index, edit in enumerate(normalized):
        if not edit.old_text:
            where = "oldText" if single else f"edits[{index}].oldText"
            raise EditApplyError(f"{where} must not be empty in {path}.")

    needs_fuzzy = any(e.old_text not in content for e in normalized)
    base = normalize_for_fuzzy_match(content) if needs_fuzzy else content

    located: list[tuple[int, int, int, str]] = []  # (start, end, edit index, replacement)
    for index, edit in enumerate(normalized):
        needle = edit.old_text if edit.old_text in base else normalize_for_fuzzy_match(edit.old_text)
        start = base.find(needle)
        if start < 0:
            if single:
                raise EditApplyError(
                    f"Could not find the exact text in {path}. The old text must match exactly "
                    "including all whitespace and newlines."
                )
            raise EditApplyError(
                f"Could not find edits[{index}] in {path}. The oldText must match exactly including "
                "all whitespace and newlines."
            )
        occurrences = _count_non_overlapping(base, needle)
        if occurrences > 1:
            if single:
                raise EditApplyError(
                    f"Found {occurrences} occurrences of the text in {path}. The text must be unique. "
                    "Please provide more context to make it unique."
                )
            raise EditApplyError(
                f"Found {occurrences} occurrences of edits[{index}] in {path}. Each oldText must be "
                "unique. Please provide more context to make it unique."
            )
        located.append((start, start + len(needle), index, edit.new_text))

    located.sort()
    for previous, current in zip(located, located[1:], strict=False):
        if previous[1] > current[0]:
            raise EditApplyError(
                f"edits[{previous[2]}] and edits[{current[2]}] overlap in {path}. Merge them into one "
                "edit or target disjoint regions."
            )

    result = base
    for start, end, _index, replacement in reversed(located):
        result = result[:start] + replacement + result[end:]
    if result == base:
        if single:
            raise EditApplyError(
                f"No changes made to {path}. The replacement produced identical content. This might "
                "indicate an issue with special characters or the text not existing as expected."
            )
        raise EditApplyError(f"No changes made to {path}. The replacements produced identical content.")
    return base, result


# --------------------------------------------------------------------------- diff rendering


_BLOCK = 512


def _common_prefix(a: list[str], b: list[str]) -> int:
    """How many leading lines two lists share, compared a block at a time (list equality runs in C)."""
    limit = min(len(a), len(b))
    start = 0
    while start + _BLOCK <= limit and a[start : start + _BLOCK] == b[start : start + _BLOCK]:
        start += _BLOCK
    while start < limit and a[start] == b[start]:
        start += 1
    return start


def _common_suffix(a: list[str], b: list[str], limit: int) -> int:
    end = 0
    while end + _BLOCK <= limit and a[len(a) - end - _BLOCK : len(a) - end] == b[len(b) - end - _BLOCK : len(b) - end]:
        end += _BLOCK
    while end < limit and a[len(a) - end - 1] == b[len(b) - end - 1]:
        end += 1
    return end


def _opcodes(old_lines: list[str], new_lines: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib opcodes, with the unchanged lines before and after the edited region left out of the
    (quadratic) matcher: an edit in a 10 MB file compares a few lines, not 200,000."""
    prefix = _common_prefix(old_lines, new_lines)
    suffix = _common_suffix(old_lines, new_lines, min(len(old_lines), len(new_lines)) - prefix)
    old_end, new_end = len(old_lines) - suffix, len(new_lines) - suffix
    matcher = difflib.SequenceMatcher(None, old_lines[prefix:old_end], new_lines[prefix:new_end], autojunk=False)
    middle = [(tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    merged: list[tuple[str, int, int, int, int]] = []
    for op in [("equal", 0, prefix, 0, prefix), *middle, ("equal", old_end, len(old_lines), new_end, len(new_lines))]:
        if op[2] == op[1] and op[4] == op[3]:
            continue  # empty
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    return merged


def compute_diff(old: str, new: str, context_lines: int = DIFF_CONTEXT_LINES) -> DiffResult:
    old_lines = old.split("\n")
    new_lines = new.split("\n")
    if len(old_lines) > 1 and len(new_lines) > 1 and old_lines[-1] == new_lines[-1] == "":
        # Both end with a newline: that is not an extra (empty) line worth showing as context.
        old_lines.pop()
        new_lines.pop()
    width = len(str(max(len(old_lines), len(new_lines))))
    opcodes = _opcodes(old_lines, new_lines)

    out: list[str] = []
    first_changed: int | None = None
    gap = f" {'':>{width}} ..."

    def context(line_no: int, text: str) -> None:
        out.append(f" {line_no:>{width}} {text}")

    for position, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag != "equal":
            if first_changed is None:
                first_changed = j1 + 1
            out.extend(f"-{i + 1:>{width}} {old_lines[i]}" for i in range(i1, i2))
            out.extend(f"+{j + 1:>{width}} {new_lines[j]}" for j in range(j1, j2))
            continue
        after_change = position > 0
        before_change = position < len(opcodes) - 1
        count = i2 - i1
        if after_change and before_change and count > 2 * context_lines:
            for k in range(context_lines):
                context(i1 + k + 1, old_lines[i1 + k])
            out.append(gap)
            for k in range(count - context_lines, count):
                context(i1 + k + 1, old_lines[i1 + k])
        elif after_change and before_change:
            for k in range(count):
                context(i1 + k + 1, old_lines[i1 + k])
        elif after_change:
            shown = min(count, context_lines)
            for k in range(shown):
                context(i1 + k + 1, old_lines[i1 + k])
            if count > shown:
                out.append(gap)
        elif before_change:
            skipped = max(0, count - context_lines)
            if skipped:
                out.append(gap)
            for k in range(skipped, count):
                context(i1 + k + 1, old_lines[i1 + k])
    return DiffResult(diff="\n".join(out), first_changed_line=first_changed)


def make_diff(old: str, new: str, path: str | None = None) -> str:
    """The line-numbered diff between two versions of a file (the text edit shows in `details.diff`).

    `path` is accepted so callers rendering any file change share one signature; the diff body
    itself carries no header. Line endings are normalised first so CRLF files diff cleanly.
    """
    return compute_diff(normalize_to_lf(old), normalize_to_lf(new)).diff
