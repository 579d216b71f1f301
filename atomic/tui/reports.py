"""The words the app uses to report compaction, export and /session: what is going on, then what came of it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from atomic.tui.formatting import format_tokens, tilde

if TYPE_CHECKING:
    from atomic.core.contract import SessionStats

REASONS = {
    "manual": "Compacting the context",
    "threshold": "The context is nearly full: compacting it",
    "overflow": "The context overflowed: compacting it, then retrying",
}


def compaction_start_text(reason: str, tokens: int | None, messages: int) -> str:
    size = f"~{format_tokens(tokens)} tokens, " if tokens else ""
    noun = "message" if messages == 1 else "messages"
    return f"⟳ {REASONS.get(reason, REASONS['manual'])} ({size}{messages} {noun})… the model marks the lines to drop."


def compaction_result_text(result: Any) -> str:
    """`Context compacted: removed 33 of 120 lines in 2 places · ~12.3k → ~6.1k tokens (-50%)`, and the backup."""
    data = result if isinstance(result, dict) else {}
    raw_stats = data.get("stats")
    stats: dict[str, Any] = raw_stats if isinstance(raw_stats, dict) else {}
    deleted, before = int(stats.get("linesDeleted") or 0), int(stats.get("linesBefore") or 0)
    ranges = int(stats.get("rangeCount") or 0)
    where = f" in {ranges} place{'' if ranges == 1 else 's'}" if ranges else ""
    line = f"✓ Context compacted: removed {deleted:,} of {before:,} lines{where}"
    tokens_before, tokens_after = stats.get("tokensBefore"), stats.get("tokensAfter")
    # "Before" is the provider's last count and "after" an estimate: only a real drop is worth a figure.
    if tokens_before and tokens_after is not None and int(tokens_after) < int(tokens_before):
        line += f" · ~{format_tokens(int(tokens_before))} → ~{format_tokens(int(tokens_after))} tokens"
        if stats.get("percentReduction"):
            line += f" (-{int(stats['percentReduction'])}%)"
    kept = "Removed spans show as (filtered N lines); the full history stays in the session file"
    backed_up = " (backed up first as *.compact.bak next to it)." if data.get("backupPath") else "."
    return f"{line}\n{kept}{backed_up}"


def export_text(path: str) -> str:
    return f"✓ Exported the session to {tilde(Path(path))} (one self-contained HTML file)"


def session_info_text(stats: SessionStats, name: str | None) -> str:
    tokens = stats.tokens
    lines = ["Session Info", ""]
    if name:
        lines.append(f"Name: {name}")
    lines += [
        f"File: {stats.session_file or 'In-memory'}",
        f"ID: {stats.session_id}",
        "",
        "Messages",
        f"  User: {stats.user_messages}",
        f"  Assistant: {stats.assistant_messages}",
        f"  Tool Calls: {stats.tool_calls}",
        f"  Tool Results: {stats.tool_results}",
        f"  Total: {stats.total_messages}",
        "",
        "Tokens",
        f"  Input: {tokens.input:,}",
        f"  Output: {tokens.output:,}",
        f"  Cache Read: {tokens.cache_read:,}",
        f"  Cache Write: {tokens.cache_write:,}",
        f"  Total: {tokens.total:,}",
        "",
        f"Cost: ${stats.cost:.4f}",
    ]
    return "\n".join(lines)
