"""A small parser for the `---` frontmatter block at the top of Markdown resource files.

Only the subset that prompt templates and skills use is understood: `key: value` lines,
single- or double-quoted values, `|` / `>` block values, and indented continuation lines.
It deliberately avoids a YAML dependency; anything it does not understand is kept as text.
"""

from __future__ import annotations

import re

_KEY_LINE = re.compile(r"^([A-Za-z0-9_][A-Za-z0-9_.-]*)\s*:(?:\s+(.*)|\s*)$")
_DOUBLE_QUOTE_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/"}


def split_frontmatter(text: str) -> tuple[list[str] | None, str]:
    """Return (frontmatter lines, body); the lines are None when the text has no closed block."""
    normalized = text.replace("\r\n", "\n").lstrip("\ufeff")
    lines = normalized.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, normalized
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            body = "\n".join(lines[index + 1 :])
            return lines[1:index], body
    # An opening fence without a closing one is ordinary content, not metadata.
    return None, normalized


def parse_frontmatter(text: str) -> tuple[dict[str, str], str]:
    """Parse a leading frontmatter block; returns (metadata, body without the block)."""
    block, body = split_frontmatter(text)
    if block is None:
        return {}, body
    return _parse_block(block), body


def strip_frontmatter(text: str) -> str:
    return split_frontmatter(text)[1]


def _parse_block(lines: list[str]) -> dict[str, str]:
    meta: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line[:1].isspace():
            continue
        match = _KEY_LINE.match(line)
        if match is None:
            continue
        key, raw_value = match.group(1), (match.group(2) or "").strip()
        # Gather the indented lines (or blank lines inside them) that belong to this key.
        continuation: list[str] = []
        while index < len(lines) and (lines[index][:1].isspace() or not lines[index].strip()):
            continuation.append(lines[index])
            index += 1
        while continuation and not continuation[-1].strip():
            continuation.pop()
        meta[key] = _value(raw_value, continuation)
    return meta


def _value(raw: str, continuation: list[str]) -> str:
    if raw[:1] in ("|", ">") and raw.rstrip("+-0123456789") in ("|", ">"):
        return _block_scalar(raw[0], continuation)
    if raw[:1] in ('"', "'"):
        # A quoted value may span lines; join them the way YAML folds flow scalars.
        full = " ".join([raw, *(part.strip() for part in continuation if part.strip())])
        quote = full[0]
        if len(full) >= 2 and full.endswith(quote):
            return _unquote(full[1:-1], quote)
        return full
    parts = [raw, *(part.strip() for part in continuation if part.strip())]
    return " ".join(part for part in parts if part)


def _block_scalar(style: str, continuation: list[str]) -> str:
    indents = [len(line) - len(line.lstrip()) for line in continuation if line.strip()]
    indent = min(indents) if indents else 0
    stripped = [line[indent:] if line.strip() else "" for line in continuation]
    if style == "|":
        return "\n".join(stripped)
    # Folded style: single newlines become spaces, blank lines stay as paragraph breaks.
    paragraphs: list[str] = []
    current: list[str] = []
    for line in stripped:
        if line:
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n".join(paragraphs)


def _unquote(inner: str, quote: str) -> str:
    if quote == "'":
        return inner.replace("''", "'")
    out: list[str] = []
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" and index + 1 < len(inner):
            nxt = inner[index + 1]
            out.append(_DOUBLE_QUOTE_ESCAPES.get(nxt, "\\" + nxt))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)
