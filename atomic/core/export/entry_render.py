"""HTML for the entries of the active branch: messages, model changes, compactions, summaries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from atomic.core.export.branch import model_label
from atomic.core.export.markdown_render import escape, render_markdown
from atomic.core.export.tool_render import (
    bash_execution_html,
    blocks_images,
    blocks_text,
    tool_call_html,
)


def format_time(value: Any, *, with_date: bool = False) -> str:
    """An ISO string or epoch-milliseconds as UTC text; unparseable values come back as given."""
    moment: datetime | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value / 1000, tz=UTC)
        except (OverflowError, OSError, ValueError):
            moment = None
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return value
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if with_date else "%H:%M:%S")


def format_tokens(count: int) -> str:
    return f"{count:,}"


def format_cost(cost: float) -> str:
    return f"${cost:.4f}" if cost < 1 else f"${cost:.2f}"


class BranchRenderer:
    """Renders one branch; tool results are shown inside the call that asked for them."""

    def __init__(self, branch: list[dict[str, Any]], labels: dict[str, str]) -> None:
        self.labels = labels
        self.results: dict[str, dict[str, Any]] = {}
        for entry in branch:
            message = entry.get("message")
            if (
                entry.get("type") == "message"
                and isinstance(message, dict)
                and message.get("role") == "toolResult"
            ):
                call_id = message.get("toolCallId")
                if isinstance(call_id, str):
                    self.results.setdefault(call_id, message)
        self.shown_results: set[str] = set()

    def render(self, branch: list[dict[str, Any]]) -> str:
        return "\n".join(html for html in (self.entry_html(entry) for entry in branch) if html)

    # ------------------------------------------------------------------ framing

    def _card(self, entry: dict[str, Any], kind: str, title: str, body: str, meta: str = "") -> str:
        entry_id = value if isinstance(value := entry.get("id"), str) else ""
        label = self.labels.get(entry_id)
        label_html = f'<span class="badge label">{escape(label)}</span>' if label else ""
        when = format_time(entry.get("timestamp"))
        full_when = format_time(entry.get("timestamp"), with_date=True)
        time_html = f'<time title="{escape(full_when)}">{escape(when)}</time>' if when else ""
        return (
            f'<article class="msg {kind}" id="entry-{escape(entry_id)}">'
            f'<div class="msg-head"><span class="role">{escape(title)}</span>{label_html}{time_html}</div>'
            f'<div class="msg-body">{body}</div>{meta}</article>'
        )

    @staticmethod
    def _marker(text: str, kind: str = "") -> str:
        return f'<div class="marker {kind}">{text}</div>'

    # ------------------------------------------------------------------ dispatch

    def entry_html(self, entry: dict[str, Any]) -> str:
        kind = entry.get("type")
        if kind == "message" and isinstance(entry.get("message"), dict):
            return self.message_html(entry, entry["message"])
        if kind == "model_change":
            model = model_label(entry.get("provider"), entry.get("modelId"))
            return self._marker(f"Model: <code>{escape(model or 'unknown')}</code>", "model")
        if kind == "thinking_level_change":
            return self._marker(f"Thinking level: <code>{escape(entry.get('thinkingLevel', ''))}</code>")
        if kind == "compaction":
            return self._summary_card(
                entry, "Context compacted", entry.get("summary"), entry.get("tokensBefore")
            )
        if kind == "session_summary":
            return self._summary_card(entry, "Session summary", entry.get("summary"), None)
        if kind == "branch_summary":
            return self._summary_card(entry, "Summary of abandoned branch", entry.get("summary"), None)
        if kind == "custom_message" and entry.get("display", True):
            return self._custom_html(entry, entry)
        # session_info, label and custom entries carry no conversation text of their own.
        return ""

    def message_html(self, entry: dict[str, Any], message: dict[str, Any]) -> str:
        role = message.get("role")
        if role == "user":
            body = render_markdown(blocks_text(message.get("content")), keep_line_breaks=True)
            return self._card(entry, "user", "User", body + blocks_images(message.get("content")))
        if role == "assistant":
            return self._assistant_html(entry, message)
        if role == "toolResult":
            call_id = message.get("toolCallId")
            if (
                isinstance(call_id, str)
                and self.results.get(call_id) is message
                and call_id in self.shown_results
            ):
                return ""  # already shown inside its call
            name = message.get("toolName") if isinstance(message.get("toolName"), str) else "tool"
            call: dict[str, Any] = {"name": name, "arguments": {}}
            return self._card(entry, "tool", f"Tool result: {name}", tool_call_html(call, message))
        if role == "bashExecution":
            return self._card(entry, "bash", "Shell", bash_execution_html(message))
        if role == "custom" and message.get("display", True):
            return self._custom_html(entry, message)
        if role in ("compactionSummary", "branchSummary"):
            title = "Compaction summary" if role == "compactionSummary" else "Branch summary"
            return self._summary_card(entry, title, message.get("summary"), message.get("tokensBefore"))
        return ""

    # ------------------------------------------------------------------ pieces

    def _assistant_html(self, entry: dict[str, Any], message: dict[str, Any]) -> str:
        parts: list[str] = []
        content = value if isinstance(value := message.get("content"), list) else []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                parts.append(f'<div class="md">{render_markdown(block["text"])}</div>')
            elif kind == "thinking":
                parts.append(self._thinking_html(block))
            elif kind == "toolCall":
                call_id = block.get("id")
                result = self.results.get(call_id) if isinstance(call_id, str) else None
                if result is not None:
                    self.shown_results.add(str(call_id))
                parts.append(tool_call_html(block, result))
        stop = message.get("stopReason")
        error = message.get("errorMessage")
        if stop == "error" or (isinstance(error, str) and error):
            parts.append(f'<div class="error-box">Error: {escape(error or "unknown error")}</div>')
        elif stop == "aborted":
            parts.append('<div class="error-box warn">Aborted</div>')
        elif stop == "length":
            parts.append('<div class="error-box warn">Stopped: output length limit reached</div>')
        return self._card(entry, "assistant", "Assistant", "".join(parts), self._usage_meta(message))

    @staticmethod
    def _thinking_html(block: dict[str, Any]) -> str:
        if block.get("redacted"):
            return '<details class="thinking"><summary>Thinking (redacted)</summary></details>'
        text = value if isinstance(value := block.get("thinking"), str) else ""
        if not text.strip():
            return ""
        return (
            '<details class="thinking"><summary>Thinking</summary>'
            f'<div class="md">{render_markdown(text)}</div></details>'
        )

    @staticmethod
    def _usage_meta(message: dict[str, Any]) -> str:
        bits: list[str] = []
        model = model_label(message.get("provider"), message.get("model"))
        if model:
            bits.append(f"<code>{escape(model)}</code>")
        usage = value if isinstance(value := message.get("usage"), dict) else {}
        names = (
            ("input", "in"),
            ("output", "out"),
            ("cacheRead", "cache read"),
            ("cacheWrite", "cache write"),
        )
        for key, label in names:
            value = usage.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value:
                bits.append(f"{escape(label)} {format_tokens(value)}")
        cost = value if isinstance(value := usage.get("cost"), dict) else {}
        total = cost.get("total")
        if isinstance(total, (int, float)) and not isinstance(total, bool) and total:
            bits.append(escape(format_cost(float(total))))
        return f'<div class="msg-meta">{" · ".join(bits)}</div>' if bits else ""

    def _summary_card(self, entry: dict[str, Any], title: str, summary: Any, tokens_before: Any) -> str:
        text = summary if isinstance(summary, str) else ""
        label = title
        if isinstance(tokens_before, int) and not isinstance(tokens_before, bool) and tokens_before:
            label += f" ({format_tokens(tokens_before)} tokens before)"
        body = f'<details class="summary-fold"><summary>Show summary</summary><div class="md">{render_markdown(text)}</div></details>'
        return self._card(entry, "summary", label, body)

    def _custom_html(self, entry: dict[str, Any], source: dict[str, Any]) -> str:
        custom_type = source.get("customType") if isinstance(source.get("customType"), str) else "custom"
        content = source.get("content")
        body = render_markdown(blocks_text(content)) + blocks_images(content)
        return self._card(entry, "custom", f"Extension: {custom_type}", body)
