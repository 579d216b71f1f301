"""Reading a session's entry tree for export: the active branch, labels and usage totals.

Entries are the session file's dicts in wire form (camelCase keys). Nothing here trusts their
shape: a malformed field is skipped rather than failing the whole export.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from atomic.core.session import tree


def active_branch(entries: list[dict[str, Any]], leaf_id: str | None) -> list[dict[str, Any]]:
    """The entries from the root to `leaf_id`, in reading order.

    `leaf_id=None` means the leaf a freshly loaded session has: the last entry in the file.
    Abandoned branches (entries not on the leaf's parent chain) are left out.
    """
    by_id = tree.index_by_id(entries)
    if leaf_id is None:
        if not entries:
            return []
        leaf_id = entries[-1].get("id")
    if not isinstance(leaf_id, str) or leaf_id not in by_id:
        raise ValueError(f"Unknown leaf entry id: {leaf_id}")
    return tree.active_branch(by_id, leaf_id, tree.entry_parent)


def labels_by_target(entries: list[dict[str, Any]]) -> dict[str, str]:
    """The current label of each labelled entry: the latest `label` entry wins, empty clears."""
    return {target: label for target, (label, _stamp) in tree.labels_by_target(entries).items()}


def has_messages(entries: list[dict[str, Any]]) -> bool:
    return any(entry.get("type") == "message" for entry in entries)


def _number(value: Any) -> float:
    # bool is an int subclass; a stray `true` must not count as one token.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    return value


@dataclass
class UsageTotals:
    """Summed assistant usage, plus the models that produced those messages (first use first)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    assistant_messages: int = 0
    models: dict[str, int] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, message: dict[str, Any]) -> None:
        self.assistant_messages += 1
        usage = message.get("usage")
        if isinstance(usage, dict):
            self.input += int(_number(usage.get("input")))
            self.output += int(_number(usage.get("output")))
            self.cache_read += int(_number(usage.get("cacheRead")))
            self.cache_write += int(_number(usage.get("cacheWrite")))
            cost = usage.get("cost")
            if isinstance(cost, dict):
                self.cost += float(_number(cost.get("total")))
        model = model_label(message.get("provider"), message.get("model"))
        if model:
            self.models[model] = self.models.get(model, 0) + 1


def model_label(provider: Any, model: Any) -> str:
    provider_text = provider if isinstance(provider, str) else ""
    model_text = model if isinstance(model, str) else ""
    if provider_text and model_text:
        return f"{provider_text}/{model_text}"
    return model_text or provider_text


def usage_totals(entries: list[dict[str, Any]]) -> UsageTotals:
    """Totals over the assistant messages among `entries`."""
    totals = UsageTotals()
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            totals.add(message)
    return totals
