"""Markdown that grows while a reply streams, at a cost that does not grow with the reply.

A reply is one line-API widget. Its text is split into top-level markdown blocks (at blank lines outside
code fences); every finished block is rendered with Rich once and its lines appended to a list that never
changes again, so a new delta only re-renders the last, growing block. Deltas are applied by one shared
`StreamFlusher` timer at most ~15 times a second. When the growing block keeps its height, only its
lines are repainted (no layout pass); when it grows, the layout pass measures this widget in O(1)
(`len(lines)`), so the cost of a frame does not depend on how long the reply already is.

Textual's own Markdown widget makes one widget per block (and per table cell), and every layout pass walks
them all: a 200 KB reply meant thousands of widgets and a frozen UI.
"""

from __future__ import annotations

import time
from weakref import WeakKeyDictionary

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.geometry import Offset, Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from atomic.tui.soft_wrap import WIDE, join_soft_breaks, soft_breaks

FRAME_S = 1 / 15  # growing text is re-rendered at most this often
# The flusher keeps its own work under about this share of the event loop, so keys are never starved.
MAX_BUSY_SHARE = 0.3


def block_boundaries(text: str) -> list[int]:
    """Offsets just after each blank line that ends a top-level block (not inside a code fence)."""
    offsets: list[int] = []
    fence: str | None = None
    position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        stripped = line.strip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None and not stripped and line.endswith("\n"):
            offsets.append(position)
    return offsets


def _is_plain_blank(strip: Strip, base: Style) -> bool:
    # Code blocks pad with coloured blank lines; only uncoloured ones are spacing.
    return not strip.text.strip() and all(seg.style is None or seg.style.bgcolor == base.bgcolor for seg in strip)


def _code_pad(strip: Strip, base: Style | None) -> int:
    """1 for a line of a code block (it starts with a coloured padding cell), else 0."""
    first = next(iter(strip), None)  # called for every painted line: no copy of the segment list
    if first is None or not first.text.startswith(" "):
        return 0
    style = first.style
    base_bg = base.bgcolor if base is not None else None
    return 1 if style is not None and style.bgcolor is not None and style.bgcolor != base_bg else 0


def _highlight(strip: Strip, span: tuple[int, int], shift: int, style: Style) -> Strip:
    """The strip with characters span[0]..span[1] of its text (after `shift` padding) in `style`."""
    text = strip.text
    start, end = span
    start = max(0, start) + shift
    end = len(text) if end == -1 else min(len(text), end + shift)
    if end <= start:
        return strip
    cell_start, cell_end = cell_len(text[:start]), cell_len(text[:end])
    before, middle, after = strip.divide([cell_start, cell_end, strip.cell_length])
    marked = Strip(Segment.apply_style(list(middle), post_style=style), middle.cell_length)
    return Strip.join([before, marked, after])


class StreamFlusher:
    """One timer for every growing message of an app: deltas become pixels at most every FRAME_S, and
    less often when rendering gets expensive (the pause grows with the cost of the last flush)."""

    def __init__(self, owner: Widget | App[object]) -> None:
        self.owner = owner
        self.pending: dict[StreamingMarkdown, None] = {}
        self._timer: Timer | None = None

    def request(self, widget: StreamingMarkdown) -> None:
        self.pending[widget] = None
        if self._timer is None:
            self._timer = self.owner.set_timer(FRAME_S, self._tick)

    def cancel(self, widget: StreamingMarkdown) -> None:
        self.pending.pop(widget, None)

    def _tick(self) -> None:
        started = time.perf_counter()
        widgets, self.pending = list(self.pending), {}
        for widget in widgets:
            if widget.is_attached:
                widget.flush()
        self._timer = None
        if self.pending:
            cost = time.perf_counter() - started
            self._timer = self.owner.set_timer(max(FRAME_S, cost / MAX_BUSY_SHARE), self._tick)


# One flusher per running app (weak: it goes with its app; tests run many apps in one process).
_FLUSHERS: WeakKeyDictionary[App[object], StreamFlusher] = WeakKeyDictionary()


def flusher_for(widget: Widget) -> StreamFlusher | None:
    """The app-wide flusher (kept on the app object, created on first use)."""
    try:
        app = widget.app
    except Exception:
        return None
    flusher = _FLUSHERS.get(app)
    if flusher is None:
        flusher = _FLUSHERS[app] = StreamFlusher(app)
    return flusher


class StreamingMarkdown(Widget):
    """Markdown text that may still be growing. `feed` deltas, then `close`."""

    DEFAULT_CSS = """
    StreamingMarkdown { height: auto; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._text = ""
        self._deltas: list[str] = []
        self._streaming = streaming
        self._flush_requested = False
        # Parsed state: finished blocks, and where the growing block starts in the text.
        self._settled_blocks: list[str] = []
        self._settled_end = 0
        self._tail = ""
        # Rendered state for `_render_key` (width, dark theme, base style).
        self._render_key: tuple[int, bool, Style] | None = None
        self._settled_lines: list[Strip] = []
        self._rendered_blocks = 0
        self._tail_render: tuple[str, list[Strip]] = ("", [])
        self._measured_height: int | None = None
        self._base_style: Style | None = None
        if text:
            self._text = text
            self._split()

    # ------------------------------------------------------------------ text

    @property
    def text_so_far(self) -> str:
        if self._deltas:
            self._text = self._text + "".join(self._deltas)  # joined per flush: `+=` per delta is quadratic
            self._deltas.clear()
        return self._text

    @text_so_far.setter
    def text_so_far(self, value: str) -> None:
        self._text = value
        self._deltas.clear()
        self._settled_blocks = []
        self._settled_end = 0
        self._tail = ""
        self._render_key = None  # re-render everything
        self._split()

    def feed(self, delta: str) -> None:
        if not delta:
            return
        self._deltas.append(delta)
        if not self._flush_requested:
            flusher = flusher_for(self) if self.is_attached else None
            if flusher is None:
                self.flush()  # not in an app yet: parsed now, rendered when mounted
            else:
                self._flush_requested = True
                flusher.request(self)

    def _split(self) -> None:
        """Move blocks that gained their closing blank line from the tail to the settled list."""
        text = self.text_so_far
        base = self._settled_end
        start = 0
        for offset in block_boundaries(text[base:]):
            if text[base + start : base + offset].strip():
                self._settled_blocks.append(text[base + start : base + offset])
                start = offset
        self._settled_end = base + start
        self._tail = text[self._settled_end :]

    def flush(self) -> None:
        """Show the deltas received so far: repaint the changed lines, or lay out again if the height changed."""
        self._flush_requested = False
        self._split()
        if not self.is_mounted:
            return
        width = self.size.width
        if self._render_key is not None and width > 0 and self._render_key[0] == width:
            first_changed = self._ensure_rendered(width)
            height = self._line_count()
            if height == self._measured_height:
                # Same height: nothing moves, so no layout pass; only the changed lines are painted again.
                if first_changed < height:
                    self.refresh(Region(0, first_changed, width, height - first_changed))
                return
        self.refresh(layout=True)

    def close(self, final_text: str | None = None) -> None:
        """No more deltas. `final_text`, when it differs from what streamed, replaces the content."""
        self._streaming = False
        if self._flush_requested:
            flusher = flusher_for(self)
            if flusher is not None:
                flusher.cancel(self)
        if final_text is not None and final_text != self.text_so_far:
            self.text_so_far = final_text
        self.flush()

    @property
    def is_streaming(self) -> bool:
        return self._streaming or self._flush_requested

    # ------------------------------------------------------------------ rendering

    def _render_block(self, text: str, width: int, dark: bool) -> list[Strip]:
        # Rich's markdown (markdown-it, pygments' lexer machinery) loads with the first reply drawn,
        # not with the app: an empty conversation never needs it.
        from atomic.tui.chat_markdown import ChatMarkdown

        markdown = ChatMarkdown(text, code_theme="monokai" if dark else "default")
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        base = self._base_style or Style()
        strips = [Strip(line).apply_style(base) for line in console.render_lines(markdown, options, style=base, pad=False)]
        # Rich puts blank lines around lists and tables; the gap between blocks is ours to add.
        while strips and _is_plain_blank(strips[0], base):
            strips.pop(0)
        while strips and _is_plain_blank(strips[-1], base):
            strips.pop()
        return strips

    def _ensure_rendered(self, width: int) -> int:
        """Render what is not rendered yet for this width/theme. Returns the first line that changed."""
        dark = self.app.current_theme.dark
        if self._base_style is None:
            self._base_style = self.rich_style
        key = (width, dark, self._base_style)
        if self._render_key != key:
            self._render_key = key
            self._settled_lines = []
            self._rendered_blocks = 0
            self._tail_render = ("", [])
        first_changed = len(self._settled_lines)
        lines = self._settled_lines
        while self._rendered_blocks < len(self._settled_blocks):
            text = self._settled_blocks[self._rendered_blocks].strip("\n")
            self._rendered_blocks += 1
            # The block that just finished was the growing one: its lines are usually rendered already.
            strips = self._tail_render[1] if text == self._tail_render[0] else self._render_block(text, width, dark)
            if strips:
                if lines:
                    lines.append(Strip.blank(width, self._base_style))
                lines.extend(strips)
        tail = self._tail.strip("\n")
        if tail != self._tail_render[0]:
            self._tail_render = (tail, self._render_block(tail, width, dark) if tail.strip() else [])
        elif first_changed == len(lines):
            return self._line_count()  # nothing changed
        return first_changed

    def _line_count(self) -> int:
        tail = len(self._tail_render[1])
        settled = len(self._settled_lines)
        return settled + tail + (1 if settled and tail else 0)

    def _line_at(self, y: int) -> Strip | None:
        settled = self._settled_lines
        if y < len(settled):
            return settled[y]
        y -= len(settled) + (1 if settled else 0)
        tail = self._tail_render[1]
        if 0 <= y < len(tail):
            return tail[y]
        return None

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width <= 0:
            return 0
        self._ensure_rendered(width)
        self._measured_height = self._line_count()
        return self._measured_height

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._ensure_rendered(width)
        line = self._line_at(y)
        if line is None:
            return Strip.blank(width, self._base_style)
        # Text selection (mouse, find bar): offsets say which character each cell is, so the screen can
        # map the mouse to (column, row) of the shown text; a code block's left padding is column -1.
        shift = _code_pad(line, self._base_style)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            line = _highlight(line, span, shift, self._selection_style())
        return line.apply_offsets(-shift, y)

    def _selection_style(self) -> Style:
        # The theme's selection colours; a transparent foreground keeps the text's own colour (the Rich
        # form of the component style would paint the text in the background colour instead).
        visual = self.screen.get_visual_style("screen--selection")
        background, foreground = visual.background, visual.foreground
        return Style(
            bgcolor=background.rich_color if background is not None and background.a > 0 else None,
            color=foreground.rich_color if foreground is not None and foreground.a > 0 else None,
        )

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected part of the text as written: markdown rendered, code without its padding, and no
        newline where the text was only wrapped to the screen."""
        lines = self.shown_lines()
        if lines is None:
            return None
        # The mouse on a code block's padding cell gives column -1.
        start, end = (None if o is None else Offset(max(0, o.x), o.y) for o in selection)
        extracted = Selection(start, end).extract("\n".join(lines))
        # Copied as written: the breaks the wrapping made are joined again.
        return join_soft_breaks(extracted, start.y if start is not None else 0, self._soft_breaks(lines)), "\n"

    def shown_lines(self) -> list[str] | None:
        """The lines on screen, one per row (find maps its matches to rows with them)."""
        if not self.size.width:
            return None
        self._ensure_rendered(self.size.width)
        lines = []
        for y in range(self._line_count()):
            line = self._line_at(y)
            if line is None:
                continue
            shift = _code_pad(line, self._base_style)
            lines.append(line.text[shift:].rstrip())
        return lines

    def _soft_breaks(self, shown: list[str]) -> list[str | None]:
        """The join of every break between the shown lines (None: a real newline), found by walking them
        beside the same blocks rendered unwrapped (a blank line between blocks, as shown)."""
        dark = self.app.current_theme.dark
        written: list[str] = []
        for block in [*self._settled_blocks, self._tail]:
            text = block.strip("\n")
            lines = [strip.text for strip in self._render_block(text, WIDE, dark)] if text.strip() else []
            if lines:
                written += ([""] if written else []) + lines
        return soft_breaks(shown, written)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        style = self.rich_style
        if style != self._base_style:
            self._base_style = style
            self._render_key = None  # colours come from CSS and the theme
