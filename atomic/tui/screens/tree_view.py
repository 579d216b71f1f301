"""Turning `Engine.tree()` (a `SessionTree`) into indented rows for the /tree screen (no Textual here, easy to test).

Like pi, a chain of single children stays in one column; only a real branch point indents its
children with ├─/└─ connectors. Entries hidden by the filter pass their children up to the nearest
shown ancestor. Everything is iterative so a 10,000-entry chain cannot hit the recursion limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atomic.tui.formatting import first_line

if TYPE_CHECKING:
    from atomic.core.contract import SessionTree, TreeNode

FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
_SETTINGS_TYPES = frozenset({"model_change", "thinking_level_change", "session_info", "custom"})


@dataclass
class TreeRow:
    entry_id: str
    prefix: str
    text: str
    kind: str  # user, assistant, tool, compaction, summary, meta
    label: str | None
    on_path: bool
    is_leaf: bool


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def describe_entry(entry: dict[str, Any]) -> tuple[str, str]:
    """(kind, one-line text) for an entry."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message") or {}
        role = message.get("role")
        if role == "user":
            return "user", "user: " + first_line(_content_text(message.get("content")), 90)
        if role == "assistant":
            content = message.get("content") or []
            text = first_line(_content_text(content), 90)
            calls = [b.get("name", "?") for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]
            if message.get("stopReason") == "error":
                error = str(message.get("errorMessage") or text)
                return "assistant", "assistant (error): " + first_line(error, 90)
            if text and calls:
                return "assistant", f"assistant: {text} → {', '.join(calls)}"
            if calls:
                return "assistant", "assistant → " + ", ".join(calls)
            return "assistant", "assistant: " + (text or "(empty)")
        if role == "toolResult":
            status = " (error)" if message.get("isError") else ""
            return "tool", f"↳ {message.get('toolName', 'tool')}{status}"
        if role == "bashExecution":
            return "tool", "! " + first_line(str(message.get("command", "")), 90)
        return "meta", f"[{role or 'message'}]"
    if kind == "compaction":
        tokens = entry.get("tokensBefore")
        return "compaction", "[compaction]" + (f" {tokens:,} tokens before" if isinstance(tokens, int) else "")
    if kind == "branch_summary":
        return "summary", "[branch summary] " + first_line(str(entry.get("summary", "")), 90)
    if kind == "model_change":
        return "meta", f"model: {entry.get('provider')}/{entry.get('modelId')}"
    if kind == "thinking_level_change":
        return "meta", f"thinking: {entry.get('thinkingLevel')}"
    if kind == "session_info":
        return "meta", f"name: {entry.get('name')}"
    return "meta", f"[{kind}]"


def is_shown(node: TreeNode, mode: str) -> bool:
    entry = node.entry
    kind = entry.get("type")
    if kind == "label":
        return False
    if mode == "all":
        return True
    if mode == "labeled-only":
        return bool(node.label)
    role = (entry.get("message") or {}).get("role") if kind == "message" else None
    if mode == "user-only":
        return role == "user"
    if kind in _SETTINGS_TYPES:
        return False
    if mode == "no-tools":
        return role not in ("toolResult", "bashExecution")
    return True


def _shown_children(children: tuple[TreeNode, ...], mode: str) -> list[TreeNode]:
    """The nearest shown descendants, in order (hidden entries are transparent)."""
    result: list[TreeNode] = []
    stack = list(reversed(children))
    while stack:
        child = stack.pop()
        if is_shown(child, mode):
            result.append(child)
        else:
            stack.extend(reversed(child.children))
    return result


def build_rows(tree: SessionTree, mode: str = "default") -> list[TreeRow]:
    leaf_id = tree.leaf_id
    # Ids on the path from the root to the leaf, to mark the active branch.
    parents: dict[str, str | None] = {}
    stack: list[tuple[TreeNode, str | None]] = [(root, None) for root in tree.roots]
    while stack:
        node, parent = stack.pop()
        parents[node.id] = parent
        stack.extend((child, node.id) for child in node.children)
    on_path: set[str] = set()
    cursor = leaf_id
    while cursor is not None:
        on_path.add(cursor)
        cursor = parents.get(cursor)

    rows: list[TreeRow] = []
    # (node, prefix for its own row, prefix its children continue with)
    work: list[tuple[TreeNode, str, str]] = [(child, "", "") for child in reversed(_shown_children(tree.roots, mode))]
    if len(work) > 1:
        work = _branch_items(list(reversed(work)), "")
    while work:
        node, prefix, child_prefix = work.pop()
        kind, text = describe_entry(node.entry)
        rows.append(
            TreeRow(
                entry_id=node.id,
                prefix=prefix,
                text=text,
                kind=kind,
                label=node.label,
                on_path=node.id in on_path,
                is_leaf=node.id == leaf_id,
            )
        )
        children = _shown_children(node.children, mode)
        if len(children) == 1:
            work.append((children[0], child_prefix, child_prefix))
        elif children:
            work.extend(_branch_items([(c, "", "") for c in children], child_prefix))
    return rows


def _branch_items(items: list[tuple[TreeNode, str, str]], base: str) -> list[tuple[TreeNode, str, str]]:
    """Connector prefixes for the children of a branch point, reversed for the work stack."""
    out = []
    for index, (node, _, _) in enumerate(items):
        last = index == len(items) - 1
        out.append((node, base + ("└─ " if last else "├─ "), base + ("   " if last else "│  ")))
    return list(reversed(out))


def visible_leaf_row(rows: list[TreeRow]) -> int:
    """Index of the leaf's row, or of its nearest shown ancestor (the leaf may be filtered out)."""
    for index, row in enumerate(rows):
        if row.is_leaf:
            return index
    last_on_path = [i for i, row in enumerate(rows) if row.on_path]
    return last_on_path[-1] if last_on_path else 0
