"""Turn the session's AgentMessages into what an LLM API accepts: user, assistant and toolResult only."""

from __future__ import annotations

from typing import Any

from atomic.core.agent.llm_text import encodable_message
from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    ImageContent,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from atomic.core.model_types import Model

IMAGE_OMITTED_TEXT = "(image omitted: model does not support images)"
IMAGES_OMITTED_NOTICE = (
    "{model} does not support images: images in this conversation are not sent to it "
    "(each is replaced by a short note; the session keeps them)."
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
    return [encodable_message(m) for m in out]


def omit_images(messages: list[Any], model: Model) -> tuple[list[Any], int]:
    """For a model whose `input` lacks "image": the messages with every image replaced by a short
    text note, and how many were replaced. The session's own messages are not changed (copies are
    made where an image is replaced), so a later switch to a vision model sends the images again."""
    if model.supports_images():
        return messages, 0
    out: list[Any] = []
    omitted = 0
    for message in messages:
        content = message.content if isinstance(message, UserMessage | ToolResultMessage) else None
        if not isinstance(content, list) or not any(isinstance(b, ImageContent) for b in content):
            out.append(message)
            continue
        blocks = []
        for block in content:
            if isinstance(block, ImageContent):
                omitted += 1
                blocks.append(TextContent(text=IMAGE_OMITTED_TEXT))
            else:
                blocks.append(block)
        out.append(message.model_copy(update={"content": blocks}))
    return out, omitted
