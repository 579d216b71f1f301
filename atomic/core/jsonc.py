"""JSON with `//` and `/* */` comments and trailing commas (models.json, settings.json)."""

from __future__ import annotations

import json
import re
from typing import Any

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


def strip_comments(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
            continue
        if ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end == -1 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end == -1 else end + 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _remove_trailing_commas(text: str) -> str:
    # Only outside strings: walk again, applying the regex to non-string segments.
    parts = re.split(r'("(?:\\.|[^"\\])*")', text)
    return "".join(p if i % 2 else _TRAILING_COMMA.sub(r"\1", p) for i, p in enumerate(parts))


def loads(text: str) -> Any:
    return json.loads(_remove_trailing_commas(strip_comments(text)))
