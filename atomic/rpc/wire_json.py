"""Turning response data into JSON text for stdout: compact, never limited by nesting depth.

`json.dumps` recurses in C and gives up (RecursionError) a few hundred levels down, which a
session tree reaches with a long single branch. `dumps` falls back to an iterative encoder then,
so any depth serializes. `RawJson` marks text that is already JSON (an entry's stored line, a
prebuilt tree) so big responses are spliced together instead of parsed and dumped again.
"""

from __future__ import annotations

import json
from typing import Any


class RawJson(str):
    """Text that already is one compact JSON value; written as is, never quoted."""


class _Fragment(str):
    """Punctuation (and encoded keys) queued by the iterative encoder."""


def _compact(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _compact(key)
    # Same coercion json.dumps applies to int / float / bool / None keys.
    return _compact({key: 0})[1:-3]


def dumps_iterative(obj: Any) -> str:
    """The same text as compact `json.dumps`, built with an explicit stack (no depth limit)."""
    out: list[str] = []
    stack: list[Any] = [obj]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Fragment or kind is RawJson:
            out.append(item)
        elif isinstance(item, dict):
            if not item:
                out.append("{}")
                continue
            stack.append(_Fragment("}"))
            pairs = list(item.items())
            for index in range(len(pairs) - 1, -1, -1):
                key, value = pairs[index]
                stack.append(value)
                stack.append(_Fragment(("," if index else "{") + _key(key) + ":"))
        elif isinstance(item, (list, tuple)):
            if not item:
                out.append("[]")
                continue
            stack.append(_Fragment("]"))
            for index in range(len(item) - 1, -1, -1):
                stack.append(item[index])
                stack.append(_Fragment("," if index else "["))
        else:
            out.append(_compact(item))
    return "".join(out)


def dumps(obj: Any) -> str:
    """Compact JSON of `obj`; deep structures take the iterative path instead of failing."""
    if type(obj) is RawJson:
        return obj
    try:
        return _compact(obj)
    except RecursionError:
        return dumps_iterative(obj)
