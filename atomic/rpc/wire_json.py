"""Turning response data into JSON text for stdout: compact, never limited by nesting depth.

`json.dumps` recurses in C and gives up (RecursionError) a few hundred levels down, which a
session tree reaches with a long single branch. `dumps` falls back to an iterative encoder then,
so any depth serializes. `RawJson` marks text that is already JSON (an entry's stored line, a
prebuilt tree) so big responses are spliced together instead of parsed and dumped again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atomic.core.session.context import ContextItem
    from atomic.core.session.store import SessionStore


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


def entries_json(store: SessionStore, since: str | None) -> RawJson:
    """`get_entries` data from the stored lines: no parsing, no re-encoding, O(entries returned)."""
    lines = store.raw_since(since)
    return RawJson(f'{{"entries":[{",".join(lines)}],"leafId":{dumps(store.leaf_id)}}}')


def tree_json(store: SessionStore) -> RawJson:
    """`get_tree` data, `{"tree":[{"entry","children","label"?,"labelTimestamp"?}],"leafId"}`.

    Built from the flat children index with an explicit stack, so a branch of any depth works,
    and each entry is its stored line, spliced in as is.
    """
    kids = store.children()
    labels = store.labels()
    by_id = store.by_id
    out: list[str] = ['{"tree":[']
    # Work items: an entry id to open (with the separator before it), or text to emit.
    stack: list[tuple[str, str]] = [("emit", "]")]
    roots = kids.get(None, [])
    for index in range(len(roots) - 1, -1, -1):
        stack.append(("open", roots[index]))
        if index:
            stack.append(("emit", ","))
    while stack:
        kind, value = stack.pop()
        if kind == "emit":
            out.append(value)
            continue
        out.append(f'{{"entry":{by_id[value].raw},"children":[')
        close = "]"
        if value in labels:
            label, stamp = labels[value]
            close += f',"label":{dumps(label)},"labelTimestamp":{dumps(stamp)}'
        stack.append(("emit", close + "}"))
        children = kids.get(value, [])
        for index in range(len(children) - 1, -1, -1):
            stack.append(("open", children[index]))
            if index:
                stack.append(("emit", ","))
    out.append(f',"leafId":{dumps(store.leaf_id)}}}')
    return RawJson("".join(out))


def messages_json(items: list[ContextItem]) -> RawJson:
    """`get_messages` data: each stored message's own text from the file when known, else its dict."""
    parts = [item.stored_json or dumps(item.wire) for item in items]
    return RawJson(f'{{"messages":[{",".join(parts)}]}}')
