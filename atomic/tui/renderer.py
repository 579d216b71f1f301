"""Turns engine events (and stored history) into conversation widgets.

Only the message being streamed changes; everything before it is mounted once and left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.widget import Widget

from atomic.tui.conversation import (
    AssistantText,
    BashView,
    Conversation,
    EarlierMessages,
    NoteMessage,
    PastedText,
    ThinkingBlock,
    UserMessageView,
)
from atomic.tui.error_view import ProviderErrorView
from atomic.tui.tool_cards import ToolCard
from atomic.tui.tool_format import result_text

# A resumed session shows only its newest messages, so opening a huge session stays instant: as many as
# fill FIRST_PAGE_SCREENS screens (at most HISTORY_PAGE). Older ones come HISTORY_PAGE at a time when the
# user scrolls to the top (or clicks the "earlier messages" line).
HISTORY_PAGE = 50
FIRST_PAGE_SCREENS = 3
CARD_LINES = 4  # a tool card's usual height, for the estimate
# A live session folds its oldest turns into the same pager once the transcript holds more than
# LIVE_WIDGET_LIMIT widgets, keeping about LIVE_WIDGETS_KEPT: every frame's layout walks every mounted
# widget, so without this each turn cost a little more than the one before.
LIVE_WIDGET_LIMIT = 80
LIVE_WIDGETS_KEPT = 40


def estimated_lines(message: Any, width: int) -> int:
    """Roughly how many lines a message takes (wrapped text plus its gap), without rendering it."""
    from atomic.core import messages as m

    if isinstance(message, m.AssistantMessage):
        texts = [
            b.text if isinstance(b, m.TextContent) else b.thinking if isinstance(b, m.ThinkingContent) else ""
            for b in message.content
        ]
        cards = sum(isinstance(b, m.ToolCall) for b in message.content)
        return sum(_wrapped(t, width) + 1 for t in texts if t.strip()) + cards * (CARD_LINES + 1)
    if isinstance(message, m.ToolResultMessage):
        return 0  # shown inside the call's card
    if isinstance(message, m.BashExecutionMessage):
        return CARD_LINES + 1
    return _wrapped(m.user_text(message), width) + 1


def _wrapped(text: str, width: int) -> int:
    return sum(len(line) // width + 1 for line in text.splitlines())


def sources_note(message: Any) -> NoteMessage | None:
    """The web pages the provider's own search used for this reply (setting `webSearch`), one per line."""
    from atomic.core.contract import web_sources

    found = web_sources(message)
    if not found:
        return None
    return NoteMessage("Sources:\n" + "\n".join(f"  {s.title} — {s.url}" for s in found))


class ConversationRenderer:
    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.blocks: dict[int, AssistantText | ThinkingBlock] = {}
        self.cards: dict[str, ToolCard] = {}
        # History not shown yet: messages[:history_start] of the session that was rendered last.
        self.history: list[Any] = []
        self.history_start = 0
        self.earlier: EarlierMessages | None = None
        # Prompts sent with collapsed pastes, by their full text: their view keeps the pastes collapsed.
        self.pasted_prompts: dict[str, list[str | PastedText]] = {}
        # The error of the newest failed reply, and the one being retried (one view per retry series).
        self.last_error: ProviderErrorView | None = None
        self.retry_view: ProviderErrorView | None = None
        conversation.on_reach_top = self.show_earlier

    # ------------------------------------------------------------------ live events

    def on_message_start(self, message: Any) -> None:
        from atomic.core import messages as m  # lazy: the first paint does not wait for the engine
        if isinstance(message, m.AssistantMessage):
            self._close_blocks()
            self.blocks = {}
            # Card ids are only unique within one assistant message: a provider may reuse `call_1` in a
            # later turn, and that call gets its own card instead of rewriting the earlier one.
            self.cards = {}
        elif isinstance(message, m.UserMessage):
            text = m.user_text(message)
            self.conversation.add(UserMessageView(text, self.pasted_prompts.pop(text, None)))
        elif isinstance(message, m.CustomMessage) and message.display:
            self.conversation.add(NoteMessage(m.user_text(message)))

    def remember_pastes(self, text: str, parts: list[str | tuple[int, str]]) -> None:
        """`text` is about to be sent; when it arrives as a user message, show these parts (pastes collapsed)."""
        if any(isinstance(part, tuple) for part in parts):
            self.pasted_prompts[text] = [PastedText(part[1]) if isinstance(part, tuple) else part for part in parts]

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
            self.show_provider_error(message)
        elif message.stop_reason == "aborted":
            self.conversation.add(NoteMessage("Aborted", "warning"))
        sources = sources_note(message)
        if sources is not None:
            self.conversation.add(sources)

    def on_tool_start(self, call_id: str, name: str, args: Any) -> None:
        self._card(call_id, name, args).set_status("running", args)

    def on_tool_update(self, call_id: str, name: str, args: Any, partial: Any, display: str | None = None) -> None:
        card = self._card(call_id, name, args)
        if card.status != "running":
            card.set_status("running")
        card.set_output(result_text(partial), display)

    def on_tool_end(self, call_id: str, name: str, result: Any, is_error: bool, display: str | None = None) -> None:
        """`display`: the result's text with the command's colours (live calls only; stored results have none)."""
        self._card(call_id, name, None).finish(result, is_error, display)

    def _card(
        self,
        call_id: str,
        name: str,
        args: Any,
        add: Callable[[Widget], None] | None = None,
        cards: dict[str, ToolCard] | None = None,
    ) -> ToolCard:
        known = self.cards if cards is None else cards
        card = known.get(call_id)
        if card is None:
            card = ToolCard(call_id, name, args)
            known[call_id] = card
            (add or self.conversation.add)(card)
        return card

    # ------------------------------------------------------------------ provider errors and retries

    def show_provider_error(self, message: Any, add: Callable[[Widget], None] | None = None) -> ProviderErrorView:
        from atomic.core.models.catalog import env_var_for
        from atomic.tui.provider_errors import describe_error

        error = describe_error(message.error_message or "", message.provider, message.model, env_var_for(message.provider))
        view = self.retry_view
        if view is not None and add is None:
            # Another failed attempt of the same retry series: the one view shows the newest error.
            view.error = error
            view.set_state("failed")
        else:
            view = ProviderErrorView(error)
            (add or self.conversation.add)(view)
        self.last_error = view
        return view

    def retry_started(self, attempt: int, max_attempts: int) -> None:
        view = self.last_error
        if view is None:
            return
        self.retry_view = view
        view.set_state("retrying", f"Retrying automatically ({attempt}/{max_attempts}) · esc cancels.")

    def retry_ended(self, success: bool, attempt: int, final_error: str | None) -> None:
        view, self.retry_view = self.retry_view, None
        if view is None:
            return
        if success:
            view.set_state("recovered", f"Recovered on retry {attempt}.")
        elif final_error == "Retry cancelled":
            view.set_state("cancelled", "Retry cancelled.")
        else:
            view.set_state("gave_up", f"Gave up after {attempt} {'retry' if attempt == 1 else 'retries'}.")

    def run_ended(self) -> None:
        """The run is over: a retry that has not ended by now is not followed any longer."""
        self.retry_view = None

    def reset(self) -> None:
        """Another session is shown: the transcript is emptied and nothing of the old session is followed."""
        self.conversation.clear()
        self.blocks, self.cards = {}, {}
        self.last_error = self.retry_view = None

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

    def setup_note(self, text: str, ready: bool) -> NoteMessage:
        """A login/logout result. Once a model is ready the welcome guide (which said there was none) goes."""
        if ready:
            for old in self.conversation.query(NoteMessage):
                if old.kind == "guide":
                    old.remove()
        return self.note(text)

    def replace_note(self, note: NoteMessage | None, text: str, kind: str = "info") -> NoteMessage:
        """A progress line becomes its result in place (or a new line when it is gone)."""
        if note is None or not note.is_attached:
            return self.note(text, kind)
        note.remove_class(f"-{note.kind}")
        note.add_class(f"-{kind}")
        note.kind, note.text = kind, text
        note.update(Content(text))
        return note

    # ------------------------------------------------------------------ keeping a live session light

    def fold_old_turns(self, load_messages: Callable[[], list[Any]]) -> int:
        """Unmount the oldest turns of a long live transcript; they come back from the pager above.

        Only while the view follows the bottom (so nothing the user looks at moves), and only at a user
        message, which is where the pager pages. `load_messages` gives the session's list as it is now
        (called only when there is something to fold: it parses every message); the widgets kept are matched to it by counting user messages from the end. Returns how many widgets
        went.
        """
        from atomic.core import messages as m

        conversation = self.conversation
        children = list(conversation.children)
        if len(children) <= LIVE_WIDGET_LIMIT or not conversation.is_following():
            return 0
        cut = next(
            (i for i in range(len(children) - LIVE_WIDGETS_KEPT, len(children)) if isinstance(children[i], UserMessageView)),
            None,
        )
        if cut is None:
            return 0
        kept_users = sum(isinstance(w, UserMessageView) for w in children[cut:])
        messages = load_messages()
        user_positions = [i for i, message in enumerate(messages) if isinstance(message, m.UserMessage)]
        if kept_users == 0 or len(user_positions) < kept_users:
            return 0  # the transcript and the session disagree: better keep everything
        start = user_positions[-kept_users]
        gone = [w for w in children[:cut] if w is not self.earlier]
        self.history = list(messages)
        self.history_start = start
        if self.earlier is not None and self.earlier.is_attached:
            self.earlier.set_count(start)
        else:
            self.earlier = EarlierMessages(start)
            conversation.mount(self.earlier, before=children[cut])
        conversation.remove_children(gone)
        return len(gone)

    # ------------------------------------------------------------------ history

    def render_history(self, messages: list[Any]) -> None:
        self.blocks = {}
        self.cards = {}
        self.history = list(messages)
        self.history_start = self._first_page_start()
        self.earlier = None
        if self.history_start:
            self.earlier = EarlierMessages(self.history_start)
            self.conversation.add(self.earlier)
        cards: dict[str, ToolCard] = {}
        for message in self.history[self.history_start :]:
            self._render_settled(message, self.conversation.add, cards)

    def _first_page_start(self) -> int:
        conversation = self.conversation
        screen = conversation.app.size
        width = max(20, (conversation.size.width or screen.width) - 4)
        budget = FIRST_PAGE_SCREENS * max(10, conversation.size.height or screen.height)
        start, lines = len(self.history), 0
        while start > 0 and len(self.history) - start < HISTORY_PAGE and lines < budget:
            start -= 1
            lines += estimated_lines(self.history[start], width)
        return self._keep_tool_results_with_calls(start)

    def _page_start(self, end: int) -> int:
        return self._keep_tool_results_with_calls(max(0, end - HISTORY_PAGE))

    def _keep_tool_results_with_calls(self, start: int) -> int:
        # A tool result belongs under its call's card: never start a page between the two.
        from atomic.core import messages as m

        while start > 0 and isinstance(self.history[start], m.ToolResultMessage):
            start -= 1
        return start

    def show_earlier(self, everything: bool = False) -> bool:
        """Mount the previous page of history (`everything`: all of it) above what is shown, keeping the
        view where it was. False when there was nothing earlier."""
        earlier = self.earlier
        if earlier is None or not earlier.is_attached or not self.history_start:
            return False
        end = self.history_start
        self.history_start = 0 if everything else self._page_start(end)
        widgets: list[Widget] = []
        cards: dict[str, ToolCard] = {}
        for message in self.history[self.history_start : end]:
            self._render_settled(message, widgets.append, cards)
        conversation = self.conversation
        height_before, scroll_before = conversation.virtual_size.height, conversation.scroll_y
        if self.history_start:
            earlier.set_count(self.history_start)
        if widgets:
            conversation.mount_all(widgets, after=earlier)
        if not self.history_start:
            earlier.remove()
            self.earlier = None

        def keep_position() -> None:
            grown = conversation.virtual_size.height - height_before
            conversation.scroll_to(y=scroll_before + grown, animate=False, immediate=True)

        conversation.call_after_refresh(keep_position)
        return True

    def earlier_text_contains(self, query: str) -> bool:
        """Does a message not mounted yet (above the pager) hold `query` (case-insensitive, in its source)?"""
        from atomic.core import messages as m

        needle = query.lower()
        for message in self.history[: self.history_start]:
            if isinstance(message, m.AssistantMessage):
                text = " ".join(b.text for b in message.content if isinstance(b, m.TextContent))
            elif isinstance(message, m.ToolResultMessage):
                text = result_text({"content": [b.to_wire() for b in message.content]})
            else:
                text = m.user_text(message)
            if needle in text.lower():
                return True
        return False

    def _render_settled(self, message: Any, add: Callable[[Widget], None], cards: dict[str, ToolCard]) -> None:
        """Mount one stored message. `cards` maps the call ids of the latest assistant message to their cards
        (its tool results follow it), so an id reused by a later message gets a card of its own."""
        from atomic.core import messages as m  # lazy: the first paint does not wait for the engine
        if isinstance(message, m.UserMessage):
            add(UserMessageView(m.user_text(message)))
        elif isinstance(message, m.AssistantMessage):
            cards.clear()
            for block in message.content:
                if isinstance(block, m.TextContent) and block.text.strip():
                    add(AssistantText(block.text))
                elif isinstance(block, m.ThinkingContent) and block.thinking.strip():
                    add(ThinkingBlock(block.thinking))
                elif isinstance(block, m.ToolCall):
                    self._card(block.id, block.name, block.arguments, add, cards)
            if message.stop_reason == "error":
                self.show_provider_error(message, add)
            sources = sources_note(message)
            if sources is not None:
                add(sources)
        elif isinstance(message, m.ToolResultMessage):
            wire = {"content": [b.to_wire() for b in message.content], "details": message.details}
            self._card(message.tool_call_id, message.tool_name, None, add, cards).finish(wire, message.is_error)
        elif isinstance(message, m.BashExecutionMessage):
            view = BashView(message.command, bool(message.exclude_from_context))
            add(view)
            view.call_after_refresh(view.finish, message.output, message.exit_code, message.cancelled)
        elif isinstance(message, m.CompactionSummaryMessage) and not message.verbatim:
            add(NoteMessage(f"Earlier conversation summarized ({message.tokens_before} tokens):\n{message.summary}"))
        elif isinstance(message, m.CompactionSummaryMessage):
            add(NoteMessage(f"Context compacted ({message.tokens_before} tokens summarized)"))
        elif isinstance(message, m.BranchSummaryMessage):
            add(NoteMessage(f"Summary of the branch left behind:\n{message.summary}"))
        elif isinstance(message, m.CustomMessage) and message.display:
            add(NoteMessage(m.user_text(message)))
