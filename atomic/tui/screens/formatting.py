"""Small formatting helpers shared by the screens (token counts, sizes, relative times)."""

from __future__ import annotations


def format_tokens(count: int) -> str:
    """200000 -> "200k", 1048576 -> "1M", 32768 -> "33k"."""
    if count >= 1_000_000:
        value = count / 1_000_000
        return f"{value:.0f}M" if value >= 10 or value == int(value) else f"{value:.1f}M"
    if count >= 1000:
        return f"{round(count / 1000)}k"
    return str(count)


def format_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def format_age(seconds: float) -> str:
    """How long ago, in the short form lists use: "just now", "5m ago", "3h ago", "2d ago"."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return "just now"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m ago"
    hours = minutes // 60
    if hours < 24:
        return f"{hours}h ago"
    days = hours // 24
    if days < 30:
        return f"{days}d ago"
    months = days // 30
    if months < 12:
        return f"{months}mo ago"
    return f"{days // 365}y ago"


def one_line(text: str, limit: int) -> str:
    """The first non-empty line of text, cut to `limit` characters with an ellipsis."""
    for line in text.splitlines():
        if line.strip():
            text = line.strip()
            break
    else:
        text = text.strip()
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
