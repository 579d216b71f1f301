"""The HTML markdown-it renders for the simplest texts, without running markdown-it.

A session's texts are mostly plain sentences, short lists and fenced code, and markdown-it on each
was most of a big export's time once highlighting was bounded (docs/performance.md). `render_simple`
handles a small subset of markdown exactly as markdown-it renders it (with the options used in
markdown_render.py) and returns None for anything else, which then goes to markdown-it:

- paragraphs whose lines start with a letter, a code span or bold text, and hold only letters,
  digits, spaces, common punctuation, single-backtick code spans and `**bold**` words;
- tight `- ` bullet lists of such one-line items;
- fenced code blocks opened by a bare ``` line (with an optional language) and closed by one;
- separated by blank lines.

tests/export/test_big_export.py compares the two renderers on thousands of generated texts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# One piece of inline text: a code span (no backtick or newline inside, no space at its ends),
# bold text (letters to letters, nothing markdown reads inside), or a run of plain characters.
_INLINE = re.compile(
    r"`([^`\n ](?:[^`\n]*[^`\n ])?)`"
    r"|\*\*([A-Za-z0-9](?:[A-Za-z0-9 ,.;:?!'\"()/=+-]*[A-Za-z0-9])?)\*\*"
    r"|([A-Za-z0-9 ,.;:?!'\"()/=+%#@$-]+)"
)
_LINE_START = re.compile(r"[A-Za-z]|`[^`]|\*\*[A-Za-z0-9]")
_BOLD_BEFORE = frozenset(" (")
_BOLD_AFTER = frozenset(" .,;:!?)")
_FENCE_OPEN = re.compile(r"```([A-Za-z0-9_+-]*)")
_FENCE_CLOSE = re.compile(r" {0,3}`{3,} *")
_BLANK = re.compile(r"[ \t]*")


def _escape(text: str) -> str:
    # What markdown-it escapes in text: &, <, > and ".
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _inline(line: str) -> str | None:
    """One line's inline HTML, or None when it holds anything beyond the subset."""
    if "``" in line or "***" in line or not _LINE_START.match(line):
        return None
    out: list[str] = []
    at = 0
    end = len(line)
    while at < end:
        match = _INLINE.match(line, at)
        if match is None:
            return None
        code, bold, plain = match.groups()
        if code is not None:
            out.append(f"<code>{_escape(code)}</code>")
        elif bold is not None:
            # Only where the delimiters are unambiguously left- and right-flanking.
            if (at and line[at - 1] not in _BOLD_BEFORE) or (match.end() < end and line[match.end()] not in _BOLD_AFTER):
                return None
            out.append(f"<strong>{_escape(bold)}</strong>")
        else:
            out.append(_escape(plain))
        at = match.end()
    return "".join(out)


def _paragraph(lines: list[str], soft_break: str) -> str | None:
    # Spaces at the end of a paragraph are dropped; inside it, two would make a hard break.
    last = lines[-1].rstrip(" \t")
    if not last or any(line.endswith((" ", "\t")) for line in lines[:-1]):
        return None
    parts: list[str] = []
    for line in [*lines[:-1], last]:
        part = _inline(line)
        if part is None:
            return None
        parts.append(part)
    return f"<p>{soft_break.join(parts)}</p>\n"


def _bullet_list(lines: list[str]) -> str | None:
    items: list[str] = []
    for line in lines:
        item = _inline(line[2:].rstrip(" \t"))
        if item is None:
            return None
        items.append(f"<li>{item}</li>\n")
    return f"<ul>\n{''.join(items)}</ul>\n"


def render_simple(text: str, soft_break: str, fence: Callable[[str, str], str]) -> str | None:
    """markdown-it's HTML for `text`, or None when it is outside the subset above.

    `soft_break` is what a single newline inside a paragraph becomes; `fence(content, language)`
    renders a fenced block (markdown-it's highlight hook; its result is followed by a newline).
    """
    lines = text.split("\n")
    count = len(lines)
    out: list[str] = []
    previous = ""
    index = 0
    while index < count:
        line = lines[index]
        if _BLANK.fullmatch(line):
            index += 1
            continue
        if line.startswith("```"):
            opening = _FENCE_OPEN.fullmatch(line)
            if opening is None:
                return None
            close = next((j for j in range(index + 1, count) if _FENCE_CLOSE.fullmatch(lines[j])), None)
            if close is None or (close + 1 < count and not _BLANK.fullmatch(lines[close + 1])):
                return None
            content = "".join(f"{body}\n" for body in lines[index + 1 : close])
            out.append(fence(content, opening.group(1)) + "\n")
            previous = "fence"
            index = close + 1
            continue
        end = index
        while end < count and not _BLANK.fullmatch(lines[end]):
            end += 1
        block = lines[index:end]
        if all(item.startswith("- ") for item in block):
            # Two lists apart by a blank line are one loose list: markdown-it's case.
            html = None if previous == "list" else _bullet_list(block)
            previous = "list"
        else:
            html = _paragraph(block, soft_break)
            previous = "paragraph"
        if html is None:
            return None
        out.append(html)
        index = end
    return "".join(out)
