"""/retry (send the last prompt again) and /diff (what this session changed in the files).

/diff reads the session itself: every write and edit that succeeded, in order, per file. An edit shows
the diff its tool reported; a write shows that the file was written and its length.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.content import Content
from textual.widgets import Static

from atomic.tui.formatting import tilde
from atomic.tui.host import AppHost
from atomic.tui.tool_format import diff_content


@dataclass
class FileChanges:
    path: str
    diffs: list[str] = field(default_factory=list)
    writes: list[int] = field(default_factory=list)  # line counts of each write


def session_changes(messages: list[Any]) -> list[FileChanges]:
    """The files the session's write and edit calls changed, in the order first changed."""
    from atomic.core import messages as m

    calls: dict[str, dict[str, Any]] = {}
    changes: dict[str, FileChanges] = {}
    for message in messages:
        if isinstance(message, m.AssistantMessage):
            for block in message.content:
                if isinstance(block, m.ToolCall):
                    calls[block.id] = block.arguments
        elif isinstance(message, m.ToolResultMessage) and not message.is_error and message.tool_name in ("write", "edit"):
            args = calls.get(message.tool_call_id, {})
            path = args.get("path")
            if not isinstance(path, str):
                continue
            entry = changes.setdefault(path, FileChanges(path))
            details = message.details if isinstance(message.details, dict) else {}
            if message.tool_name == "edit" and isinstance(details.get("diff"), str):
                entry.diffs.append(details["diff"])
            elif message.tool_name == "write":
                content = args.get("content")
                entry.writes.append(len(content.splitlines()) if isinstance(content, str) else 0)
    return list(changes.values())


class SessionDiffView(Static):
    """The /diff report in the transcript."""

    DEFAULT_CSS = """
    SessionDiffView { padding: 0 1; border-left: thick $accent; }
    """


def diff_report(changes: list[FileChanges]) -> Content:
    parts: list[Content] = [Content.styled(f"Files changed in this session: {len(changes)}", "bold")]
    for change in changes:
        parts.append(Content.styled(change.path, "bold $text-accent"))
        for lines in change.writes:
            parts.append(Content.styled(f"  written ({lines:,} lines)", "$text-muted"))
        for diff in change.diffs:
            parts.append(diff_content(diff))
    return Content("\n").join(parts)


async def diff_command(app: AppHost, _args: str) -> None:
    changes = session_changes(app.engine.messages())
    if not changes:
        app.renderer.note(f"No file was written or edited in this session ({tilde(app.engine.cwd)}).")
        return
    app.conversation.add(SessionDiffView(diff_report(changes)))


async def retry_command(app: AppHost, _args: str) -> None:
    """Send the last prompt of the session again (not while the agent works: Esc first)."""
    engine = app.engine
    if engine.is_streaming:
        app.notify("The agent is still working: press Esc first, then /retry", severity="warning")
        return
    from atomic.core import messages as m

    prompts = [m.user_text(msg) for msg in engine.messages() if isinstance(msg, m.UserMessage)]
    prompts = [p for p in prompts if p.strip()]
    if not prompts:
        app.notify("Nothing to retry yet", severity="warning")
        return
    from atomic.core.contract import PromptRejected

    try:
        await engine.prompt(prompts[-1], source="interactive")
    except PromptRejected as exc:
        app.show_error(str(exc))
