"""Turning response data into JSON text for stdout: compact, never limited by nesting depth.

`json.dumps` recurses in C and gives up (RecursionError) a few hundred levels down, which a
session tree reaches with a long single branch. `dumps` falls back to an iterative encoder then,
so any depth serializes. `JsonPieces` is text that already is JSON (entries' stored lines, a
prebuilt tree), spliced together instead of parsed and dumped again and left in chunks, so the
server writes a 28 MB answer a chunk at a time instead of joining, copying and encoding it whole
(docs/performance.md, "Sessions at scale").
"""

from __future__ import annotations

import json
from typing import Any


class JsonPieces:
    """One compact JSON value as consecutive chunks of text, never joined in one piece.

    The RPC writer encodes and writes one chunk at a time; `text()` is the value joined, for
    anything else. Producers keep chunks to a few hundred KB (`joined_in_chunks`).
    """

    __slots__ = ("chunks",)

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks

    def text(self) -> str:
        return "".join(self.chunks)


# Items per chunk: ~0.3 MB of stored messages, small enough to stay in the CPU cache and in memory
# that is already mapped, big enough for few write calls.
CHUNK_ITEMS = 512


def joined_in_chunks(items: list[Any], sep: str = ",") -> list[str]:
    """`sep.join(items)` as consecutive chunks; an item that is not text yet is encoded with `dumps`.

    The type check is the join's own (TypeError), so a list of texts is never walked in Python.
    """
    chunks: list[str] = []
    for start in range(0, len(items), CHUNK_ITEMS):
        # Every chunk after the first begins with the separator: an empty first item puts it there.
        part = items[max(start - 1, 0) : start + CHUNK_ITEMS]
        if start:
            part[0] = ""
        try:
            chunks.append(sep.join(part))
        except TypeError:
            chunks.append(sep.join(m if type(m) is str else dumps(m) for m in part))
    return chunks


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
        if kind is _Fragment:
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
    if type(obj) is JsonPieces:
        return obj.text()
    try:
        return _compact(obj)
    except RecursionError:
        return dumps_iterative(obj)
