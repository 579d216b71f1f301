"""The scrolling conversation and its simple message widgets (user, assistant text, thinking, notes, bash)."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalGroup, VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Static

from atomic.tui.ansi_output import coloured_content, coloured_tail
from atomic.tui.streaming import StreamingMarkdown

BASH_PREVIEW_LINES = 8
# The coloured copy of a `!cmd`'s output keeps at most this many characters (its end).
BASH_COLOURED_KEEP = 64 * 1024


class Conversation(VerticalScroll):
    """Holds every message widget. Anchored: follows new output unless the user scrolled up.

    Collapse state lives in CSS classes here (`-thinking-collapsed`, `-thinking-hidden`,
    `-tools-expanded`), so toggling touches one node instead of every message. The rules that react to
    them live here too: a widget's DEFAULT_CSS is scoped to that widget, so a rule there that starts
    with `Conversation` never matches (Ctrl+O did nothing because of that).
    """

    DEFAULT_CSS = """
    Conversation { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    Conversation > * { margin-bottom: 1; }
    Conversation.-thinking-collapsed ThinkingBlock > .thinking-body { display: none; }
    Conversation.-thinking-collapsed ThinkingBlock > .thinking-open { display: none; }
    Conversation ThinkingBlock > .thinking-closed { display: none; }
    Conversation.-thinking-collapsed ThinkingBlock > .thinking-closed { display: block; }
    Conversation.-thinking-hidden ThinkingBlock { display: none; }
    Conversation.-tools-expanded ToolCard > .tool-preview { display: none; }
    Conversation.-tools-expanded ToolCard > .tool-full { display: block; }
    Conversation.-tools-expanded ToolCard > .tool-empty { display: none; }
    """

    # Never focused: a click in the transcript (to select text, to scroll) leaves the editor focused;
    # the keyboard scrolls it through app bindings (PageUp/PageDown, Ctrl+Home/End) instead.
    can_focus = False

    # Called when the user scrolls to the very top (the renderer shows earlier history then).
    on_reach_top: Callable[[], object] | None = None

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 < old_value and self.on_reach_top is not None:
            self.call_later(self.on_reach_top)

    def add(self, widget: Widget) -> None:
        self.mount(widget)
        if not self._anchored:
            self.call_after_refresh(self._anchor_when_full)

    def watch_virtual_size(self, size: Size) -> None:
        # A message that grows in place (a streamed reply) changes the virtual size without an `add`:
        # without this, a first reply longer than the screen was never followed.
        if not self._anchored:
            self.call_after_refresh(self._anchor_when_full)

    def _anchor_when_full(self) -> None:
        # Textual's anchor scrolls to "bottom minus viewport", which is negative while the content is
        # shorter than the view and pins a short conversation to the bottom. Anchor once it overflows.
        if not self._anchored and self.max_scroll_y > 0 and not self.holding_top:
            self.anchor()

    def is_following(self) -> bool:
        """Is the view at the bottom, following new output (not scrolled up by the user)?"""
        return self.scroll_y >= self.max_scroll_y - 1

    def follow(self) -> None:
        """Jump to the bottom and follow new output again (a prompt was sent while scrolled up)."""
        self.holding_top = False
        if self.max_scroll_y > 0:
            self.anchor()  # scrolls to the end and resets a released anchor
        else:
            self.scroll_end(animate=False, immediate=True)
            self.call_after_refresh(self._anchor_when_full)

    # Set by `show_top` until the next `follow` (a message sent): new lines do not scroll the view down.
    holding_top = False

    def show_top(self) -> None:
        """Stop following and show the start (the welcome guide is read from its first line)."""
        self.holding_top = True
        self.anchor(False)
        self.scroll_home(animate=False, immediate=True)

    def page(self, direction: int) -> None:
        """Scroll a page up (-1) or down (1), keeping two lines of context."""
        step = max(1, self.scrollable_content_region.height - 2)
        self.scroll_to(y=self.scroll_y + direction * step, animate=False, immediate=True)
        if direction > 0 and self.scroll_y >= self.max_scroll_y:
            self.follow()

    def clear(self) -> None:
        """Remove every message (the view is about to be rebuilt) and start at the top again."""
        self.anchor(False)
        self.remove_children()


class StartupHeader(Static):
    """Plain text: `[Context] AGENTS.md` and `[Skills] …` are labels, not markup to be parsed away."""

    DEFAULT_CSS = """
    StartupHeader { color: $text-muted; padding: 0 0; }
    """

    def __init__(self, text: str) -> None:
        super().__init__(text, markup=False)


class EarlierMessages(Static):
    """The first line of a long session: how many older messages are not shown yet."""

    DEFAULT_CSS = """
    EarlierMessages { color: $text-muted; text-style: italic; padding: 0 1; }
    EarlierMessages:hover { color: $accent; }
    """

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.set_count(hidden)

    def set_count(self, hidden: int) -> None:
        self.hidden = hidden
        noun = "message" if hidden == 1 else "messages"
        self.update(f"▲ {hidden:,} earlier {noun} · scroll to the top or click here to show more")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        conversation = self.parent
        if isinstance(conversation, Conversation) and conversation.on_reach_top is not None:
            conversation.on_reach_top()


class UserMessageView(Static):
    """A prompt as sent. A large paste stays collapsed as it was in the editor (`[pasted 2,000 lines]`);
    a click expands or collapses it. Collapsed, its hidden lines are neither shown nor found by find."""

    DEFAULT_CSS = """
    UserMessageView { background: $user-message-background; padding: 0 1; width: 1fr; }
    """

    def __init__(self, text: str, parts: list[str | PastedText] | None = None) -> None:
        self.text = text
        self.parts = parts
        self.expanded = False
        super().__init__(self._content())

    @property
    def has_paste(self) -> bool:
        return bool(self.parts) and any(isinstance(part, PastedText) for part in self.parts or [])

    def _content(self) -> Content:
        if not self.has_paste or self.expanded:
            return Content(self.text)
        pieces: list[Content | str] = []
        for part in self.parts or []:
            if isinstance(part, PastedText):
                pieces.append(Content.styled(part.label(), "bold $text-accent"))
            else:
                pieces.append(part)
        return Content.assemble(*pieces)

    def on_click(self, event: events.Click) -> None:
        if self.has_paste and event.chain == 1:
            self.expanded = not self.expanded
            self.update(self._content())


class PastedText:
    """A paste the editor collapsed: shown as its marker until expanded."""

    def __init__(self, text: str) -> None:
        self.text = text

    def label(self) -> str:
        lines = self.text.count("\n") + 1
        size = f"{lines:,} lines" if lines > 1 else f"{len(self.text):,} characters"
        return f"[pasted {size} · click to expand]"


class AssistantText(StreamingMarkdown):
    DEFAULT_CSS = """
    AssistantText { padding: 0 1; }
    """


class ThinkingBlock(VerticalGroup):
    DEFAULT_CSS = """
    ThinkingBlock { padding: 0 1; }
    ThinkingBlock > .thinking-open, ThinkingBlock > .thinking-closed { color: $text-muted; text-style: italic; }
    ThinkingBlock > .thinking-body { color: $text-muted; text-style: italic; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False) -> None:
        super().__init__()
        self.body = StreamingMarkdown(text, streaming=streaming, classes="thinking-body")

    def compose(self) -> ComposeResult:
        yield Static("Thinking:", classes="thinking-open")
        yield Static("Thinking… (ctrl+t to expand)", classes="thinking-closed")
        yield self.body


class NoteMessage(Static):
    """A status, info or error line in the conversation (never a model message)."""

    DEFAULT_CSS = """
    NoteMessage { color: $text-muted; padding: 0 1; }
    NoteMessage.-error { color: $error; }
    NoteMessage.-warning { color: $warning; }
    NoteMessage.-guide { color: $foreground; border: round $accent; padding: 0 1; }
    """

    def __init__(self, text: str, kind: str = "info") -> None:
        super().__init__(Content(text), classes=f"-{kind}")
        self.kind = kind
        self.text = text


class BashView(VerticalGroup):
    """Output of a `!cmd` typed by the user: streamed, then the exit code."""

    DEFAULT_CSS = """
    BashView { border-left: thick $bash-mode; padding: 0 1; }
    BashView > .bash-command { color: $bash-mode; text-style: bold; }
    BashView > .bash-output { color: $foreground; }
    BashView > .bash-status { color: $text-muted; }
    BashView.-failed > .bash-status { color: $error; }
    """

    def __init__(self, command: str, excluded: bool) -> None:
        super().__init__()
        self.command = command
        self.excluded = excluded
        self.output = ""
        # The output with its colours (SGR only) while the command runs here; a resumed one has none.
        self.coloured = ""
        self._output_widget = Static("", classes="bash-output")
        self._status_widget = Static("running… (esc to cancel)", classes="bash-status")
        self._refresh_pending = False

    def compose(self) -> ComposeResult:
        prefix = "!! " if self.excluded else "$ "
        yield Static(Content(prefix + self.command), classes="bash-command")
        yield self._output_widget
        yield self._status_widget

    def append_output(self, text: str) -> None:
        self.output += text
        # Coalesce bursts of chunks into one repaint every 50 ms.
        if not self._refresh_pending:
            self._refresh_pending = True
            self.set_timer(0.05, self._flush)

    def append_display(self, text: str) -> None:
        self.coloured += text
        if len(self.coloured) > 2 * BASH_COLOURED_KEEP:
            # Cut at a line start, so no colour sequence is split (the colour state of the cut lines is lost).
            cut = self.coloured.find("\n", len(self.coloured) - BASH_COLOURED_KEEP)
            self.coloured = self.coloured[cut + 1 :] if cut >= 0 else ""

    def _flush(self) -> None:
        self._refresh_pending = False
        lines = self.output.rstrip("\n").splitlines()
        shown = lines[-BASH_PREVIEW_LINES:]
        skipped = len(lines) - len(shown)
        if "\x1b" in self.coloured:
            body = coloured_tail(self.coloured.rstrip("\n"), len(shown))
        else:
            body = coloured_content("\n".join(shown))
        content = Content(f"… {skipped} earlier lines\n") + body if skipped else body
        self._output_widget.update(content)
        self._output_widget.display = bool(content.plain)  # no blank line for a command that printed nothing

    def finish(self, output: str, exit_code: int | None, cancelled: bool) -> None:
        self.output = output
        self._flush()
        if cancelled:
            status = "cancelled"
        elif exit_code:
            status = f"exit code {exit_code}"
        else:
            status = "exit code 0"
        if self.excluded:
            status += " · not added to context"
        self.set_class(bool(exit_code) or cancelled, "-failed")
        self._status_widget.update(status)
