"""`session/load`: the stored conversation sent again as updates, before the load is answered."""

from __future__ import annotations

from typing import Any

from acp import helpers
from acp.schema import ToolCallStatus

from atomic.acp.session_bridge import SessionBridge
from atomic.acp.tool_view import replayed_diffs, text_content, tool_kind, tool_locations, tool_title
from atomic.core.messages import (
    AssistantMessage,
    BashExecutionMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


def _user_updates(message: UserMessage) -> list[Any]:
    if isinstance(message.content, str):
        return [helpers.update_user_message_text(message.content)] if message.content else []
    updates: list[Any] = []
    for block in message.content:
        if isinstance(block, TextContent) and block.text:
            updates.append(helpers.update_user_message_text(block.text))
        elif isinstance(block, ImageContent):
            updates.append(helpers.update_user_message(helpers.image_block(block.data, block.mime_type)))
    return updates


def replay(bridge: SessionBridge) -> None:
    messages = bridge.engine.messages()
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    for message in messages:
        if isinstance(message, UserMessage):
            for update in _user_updates(message):
                bridge.send(update)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ThinkingContent) and block.thinking and not block.redacted:
                    bridge.send(helpers.update_agent_thought_text(block.thinking))
                elif isinstance(block, TextContent) and block.text:
                    bridge.send(helpers.update_agent_message_text(block.text))
                elif isinstance(block, ToolCall):
                    bridge.send(_finished_tool_call(bridge, block, results.get(block.id)))
        elif isinstance(message, BashExecutionMessage):
            failed = message.cancelled or message.exit_code not in (0, None)
            bash_status: ToolCallStatus = "failed" if failed else "completed"
            bash_call = helpers.start_tool_call(
                f"bash-{message.timestamp}", message.command, kind="execute", status=bash_status,
                content=text_content(message.output),
            )
            bridge.send(bash_call)


def _finished_tool_call(bridge: SessionBridge, call: ToolCall, result: ToolResultMessage | None) -> Any:
    args = call.arguments if isinstance(call.arguments, dict) else {}
    text = "".join(b.text for b in result.content if isinstance(b, TextContent)) if result else ""
    status: ToolCallStatus = "failed" if result is None or result.is_error else "completed"
    # A file change's diff is not stored; the call's own arguments say what it replaced, as live
    # diffs do (absolute path, old and new text), under the id the call ran with.
    diffs = replayed_diffs(bridge.cwd, call.name, args) if status == "completed" else []
    return helpers.start_tool_call(
        call.id,
        tool_title(call.name, args),
        kind=tool_kind(call.name),
        status=status,
        content=diffs or text_content(text),
        locations=tool_locations(bridge.cwd, call.name, args),
        raw_input=args,
    )
