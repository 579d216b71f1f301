"""Turns engine events (and stored history) into conversation widgets.

Only the message being streamed changes; everything before it is mounted once and left alone.
"""

from __future__ import annotations

from typing import Any

from atomic.tui.conversation import (
    AssistantText,
    BashView,
    Conversation,
    NoteMessage,
    ThinkingBlock,
    UserMessageView,
)
from atomic.tui.tool_cards import ToolCard

# A resumed session shows only its newest messages, so opening a huge session stays instant.
HISTORY_LIMIT = 200


class ConversationRenderer:
    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.blocks: dict[int, AssistantText | ThinkingBlock] = {}
        self.cards: dict[str, ToolCard] = {}

    # ------------------------------------------------------------------ live events

    def on_message_start(self, message: Any) -> None:
        from atomic.core import messages as m  # lazy: the first paint does not wait for the engine
        if isinstance(message, m.AssistantMessage):
            self._close_blocks()
            self.blocks = {}
        elif isinstance(message, m.UserMessage):
            self.conversation.add(UserMessageView(m.user_text(message)))
        elif isinstance(message, m.CustomMessage) and message.display:
            self.conversation.add(NoteMessage(m.user_text(message)))

    def on_assistant_event(self, event: Any) -> None:
        kind = event.type
        index = event.content_index if event.content_index is not None else -1
        if kind == "text_start":
            block = AssistantText(streaming=True)
            self.blocks[index] = block
            self.conversation.add(block)
        elif kind == "thinking_start":
            thinking = ThinkingBlock(streaming=True)
            self.blocks[index] = thinking
            self.conversation.add(thinking)
        elif kind in ("text_delta", "thinking_delta"):
            target = self.blocks.get(index)
            if isinstance(target, AssistantText):
                target.feed(event.delta or "")
            elif isinstance(target, ThinkingBlock):
                target.body.feed(event.delta or "")
        elif kind in ("text_end", "thinking_end"):
            target = self.blocks.get(index)
            if isinstance(target, AssistantText):
                target.close(event.content)
            elif isinstance(target, ThinkingBlock):
                target.body.close(event.content)
        elif kind == "toolcall_end" and isinstance(event.tool_call, dict):
            call = event.tool_call
            self._card(str(call.get("id", "")), str(call.get("name", "")), call.get("arguments"))

    def on_message_end(self, message: Any) -> None:
        from atomic.core import messages as m  # lazy: the first paint does not wait for the engine
        if not isinstance(message, m.AssistantMessage):
            return
        self._close_blocks()
        if message.stop_reason == "error":
            self.conversation.add(NoteMessage(f"Error: {message.error_message or 'unknown error'}", "error"))
        elif message.stop_reason == "aborted":
            self.conversation.add(NoteMessage("Aborted", "warning"))

    def on_tool_start(self, call_id: str, name: str, args: Any) -> None:
        self._card(call_id, name, args).set_status("running", args)

    def on_tool_update(self, call_id: str, name: str, args: Any, partial: Any) -> None:
        from atomic.tui.tool_cards import result_text

        card = self._card(call_id, name, args)
        if card.status != "running":
            card.set_status("running")
        card.set_output(result_text(partial))

    def on_tool_end(self, call_id: str, name: str, result: Any, is_error: bool) -> None:
        self._card(call_id, name, None).finish(result, is_error)

    def _card(self, call_id: str, name: str, args: Any) -> ToolCard:
        card = self.cards.get(call_id)
        if card is None:
            card = ToolCard(call_id, name, args)
            self.cards[call_id] = card
            self.conversation.add(card)
        return card

    def _close_blocks(self) -> None:
        for block in self.blocks.values():
            if isinstance(block, AssistantText):
                block.close()
            else:
                block.body.close()

    def note(self, text: str, kind: str = "info") -> NoteMessage:
        widget = NoteMessage(text, kind)
        self.conversation.add(widget)
        return widget

    # ------------------------------------------------------------------ history

    def render_history(self, messages: list[Any]) -> None:
        self.blocks = {}
        self.cards = {}
        hidden = max(0, len(messages) - HISTORY_LIMIT)
        if hidden:
            self.note(f"… {hidden} earlier messages not shown (/tree or /export to see them)")
        for message in messages[hidden:]:
            self._render_settled(message)

    def _render_settled(self, message: Any) -> None:
        from atomic.core import messages as m  # lazy: the first paint does not wait for the engine
        add = self.conversation.add
        if isinstance(message, m.UserMessage):
            add(UserMessageView(m.user_text(message)))
        elif isinstance(message, m.AssistantMessage):
            for block in message.content:
                if isinstance(block, m.TextContent) and block.text.strip():
                    add(AssistantText(block.text))
                elif isinstance(block, m.ThinkingContent) and block.thinking.strip():
                    add(ThinkingBlock(block.thinking))
                elif isinstance(block, m.ToolCall):
                    self._card(block.id, block.name, block.arguments)
            if message.stop_reason == "error":
                add(NoteMessage(f"Error: {message.error_message or 'unknown error'}", "error"))
        elif isinstance(message, m.ToolResultMessage):
            wire = {"content": [b.to_wire() for b in message.content], "details": message.details}
            self._card(message.tool_call_id, message.tool_name, None).finish(wire, message.is_error)
        elif isinstance(message, m.BashExecutionMessage):
            view = BashView(message.command, bool(message.exclude_from_context))
            add(view)
            view.call_after_refresh(view.finish, message.output, message.exit_code, message.cancelled)
        elif isinstance(message, m.CompactionSummaryMessage):
            add(NoteMessage(f"Context compacted ({message.tokens_before} tokens summarized)"))
        elif isinstance(message, m.CustomMessage) and message.display:
            add(NoteMessage(m.user_text(message)))
