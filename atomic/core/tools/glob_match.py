"""Glob patterns as fd and ripgrep understand them: `*`, `?`, `[...]`, `**`, `{a,b}`."""

from __future__ import annotations

import re
from functools import lru_cache


def _class_end(pattern: str, start: int) -> int:
    """Index of the `]` closing the class opened at `start`, or -1."""
    index = start + 1
    if index < len(pattern) and pattern[index] in "!^":
        index += 1
    if index < len(pattern) and pattern[index] == "]":
        index += 1
    closing = pattern.find("]", index)
    return closing


def _translate(pattern: str) -> str:
    out: list[str] = []
    depth = 0
    index = 0
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if char == "*":
            if pattern.startswith("**", index):
                index += 2
                if index < length and pattern[index] == "/":
                    out.append("(?:.*/)?")
                    index += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _class_end(pattern, index)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1 : end]
                if body[:1] in ("!", "^"):
                    # Like every other wildcard, a negated class never matches the separator.
                    body = "^/" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index + 1 < length:
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    out.extend(")" * depth)
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(f"(?s:{_translate(pattern)})\\Z")
    except re.error:
        return re.compile(re.escape(pattern) + r"\Z")


def glob_matches(pattern: str, relative_path: str) -> bool:
    """Match like fd/rg: a pattern without `/` tests the file name, one with `/` the relative path."""
    if "/" in pattern:
        return compile_glob(pattern.lstrip("/")).match(relative_path) is not None
    name = relative_path.rsplit("/", 1)[-1]
    return compile_glob(pattern).match(name) is not None
