"""Dollar cost of one response from its token usage and the model's per-million prices."""

from __future__ import annotations

from atomic.core.messages import Usage
from atomic.core.model_types import Model

_PER_MILLION = 1_000_000


def compute_cost(model: Model, usage: Usage) -> None:
    """Fill `usage.cost` in place: each part is price / 1e6 * tokens, total is their sum."""
    prices = model.cost
    cost = usage.cost
    cost.input = prices.input / _PER_MILLION * usage.input
    cost.output = prices.output / _PER_MILLION * usage.output
    cost.cache_read = prices.cache_read / _PER_MILLION * usage.cache_read
    cost.cache_write = prices.cache_write / _PER_MILLION * usage.cache_write
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write
