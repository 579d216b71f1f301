"""Turn the session's AgentMessages into what an LLM API accepts: user, assistant and toolResult only."""

from __future__ import annotations

from typing import Any

from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    TextContent,
    ToolResultMessage,
    UserMessage,
)


def bash_execution_text(message: BashExecutionMessage) -> str:
    body = message.output if message.output else "(no output)"
    text = f"Ran `{message.command}`\n```\n{body}\n```"
    if message.cancelled:
        text += "\n\n(command cancelled)"
    elif message.exit_code not in (0, None):
        text += f"\n\nCommand exited with code {message.exit_code}"
    if message.truncated and message.full_output_path:
        text += f"\n\n[Output truncated. Full output: {message.full_output_path}]"
    return text


def convert_to_llm(messages: list[Any]) -> list[Any]:
    out: list[Any] = []
    for message in messages:
        if isinstance(message, UserMessage | ToolResultMessage):
            out.append(message)
        elif isinstance(message, AssistantMessage):
            # A failed attempt stays in the session file but is never sent again.
            if message.stop_reason == "error":
                continue
            if message.stop_reason == "aborted" and not message.content:
                continue
            out.append(message)
        elif isinstance(message, BashExecutionMessage):
            if message.exclude_from_context:
                continue
            out.append(UserMessage(content=bash_execution_text(message), timestamp=message.timestamp))
        elif isinstance(message, CustomMessage):
            content = message.content
            if isinstance(content, str):
                content = [TextContent(text=content)]
            out.append(UserMessage(content=content, timestamp=message.timestamp))
        elif isinstance(message, CompactionSummaryMessage):
            from atomic.core.compaction.context import compaction_summary_to_user_text

            out.append(UserMessage(content=compaction_summary_to_user_text(message), timestamp=message.timestamp))
        elif isinstance(message, BranchSummaryMessage):
            from atomic.core.compaction.context import branch_summary_to_user_text

            out.append(UserMessage(content=branch_summary_to_user_text(message), timestamp=message.timestamp))
    return out
