"""Markdown that grows while a reply streams, at a cost that does not grow with the reply.

A reply is shown as a column of segments, each one widget holding a run of top-level markdown blocks
(split at blank lines outside code fences) rendered with Rich. Every block is rendered once and cached;
while a reply streams only its last, growing block is rendered again, at most `FRAME_S` apart. A segment
holding `SEGMENT_CHARS` of finished blocks is closed and later blocks go to a new one, so one layout pass
never has to measure more than a few segments' worth of lines. Textual's own Markdown widget makes one widget per block
(and per table cell), and every layout pass walks them all: a 200 KB reply meant thousands of widgets
and a frozen UI. Here a 200 KB reply is ~200 widgets and a keypress never waits for a re-parse.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.markdown import Heading, Markdown
from rich.style import Style
from textual.containers import VerticalGroup
from textual.geometry import Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

SEGMENT_CHARS = 4000  # a segment holding this much finished text is closed; later blocks start a new one
FRAME_S = 1 / 15  # the growing block is re-rendered at most this often


class _LeftHeading(Heading):
    # Rich centres h1; in a chat column every heading reads better on the left.
    LEVEL_ALIGN: ClassVar[dict[str, Any]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class ChatMarkdown(Markdown):
    elements: ClassVar[dict[str, Any]] = {**Markdown.elements, "heading_open": _LeftHeading}


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


def split_blocks(text: str) -> list[str]:
    """Top-level blocks of `text` (each keeps its trailing blank line); the last may still be growing."""
    blocks: list[str] = []
    start = 0
    for offset in block_boundaries(text):
        if text[start:offset].strip():
            blocks.append(text[start:offset])
            start = offset
    blocks.append(text[start:])
    return blocks


def _is_plain_blank(strip: Strip, base: Style) -> bool:
    # Code blocks pad with coloured blank lines; only uncoloured ones are spacing.
    return not strip.text.strip() and all(seg.style is None or seg.style.bgcolor == base.bgcolor for seg in strip)


class MarkdownSegment(Widget):
    """A run of markdown blocks in one widget. Each block is rendered once per (text, width, theme)
    and cached, so a growing reply only ever re-renders its last block."""

    DEFAULT_CSS = """
    MarkdownSegment { height: auto; }
    MarkdownSegment.-settled { margin-bottom: 1; }
    """

    def __init__(self, blocks: list[str] | None = None) -> None:
        super().__init__()
        self.blocks: list[str] = blocks or []
        self._render_key: tuple[int, bool] | None = None
        self._block_cache: dict[str, list[Strip]] = {}
        self._lines_cache: list[Strip] | None = None
        self._style: object = None

    @property
    def char_count(self) -> int:
        return sum(len(b) for b in self.blocks)

    def set_blocks(self, blocks: list[str]) -> None:
        if blocks != self.blocks:
            self.blocks = blocks
            self._lines_cache = None
            self.refresh(layout=True)

    def _render_block(self, text: str, width: int, dark: bool) -> list[Strip]:
        markdown = ChatMarkdown(text.strip("\n"), code_theme="monokai" if dark else "default")
        console = self.app.console
        options = console.options.update(width=max(1, width), height=None, highlight=False)
        base = self.rich_style
        strips = [Strip(line).apply_style(base) for line in console.render_lines(markdown, options, style=base, pad=False)]
        # Rich puts blank lines around lists and tables; the gap between blocks is ours to add.
        while strips and _is_plain_blank(strips[0], base):
            strips.pop(0)
        while strips and _is_plain_blank(strips[-1], base):
            strips.pop()
        return strips

    def _lines(self, width: int) -> list[Strip]:
        dark = self.app.current_theme.dark
        key = (width, dark)
        if self._render_key != key:
            self._render_key = key
            self._block_cache = {}
            self._lines_cache = None
        if self._lines_cache is None:
            cache, fresh = self._block_cache, {}
            lines: list[Strip] = []
            for text in self.blocks:
                if not text.strip():
                    continue
                strips = cache.get(text) or self._render_block(text, width, dark)
                fresh[text] = strips
                if lines:
                    lines.append(Strip.blank(width, self.rich_style))
                lines.extend(strips)
            self._block_cache = fresh
            self._lines_cache = lines
        return self._lines_cache

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines(width)
        return lines[y] if 0 <= y < len(lines) else Strip.blank(width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        style = self.rich_style
        if style != self._style:
            self._style = style
            self._render_key = None  # colours come from CSS and the theme


class StreamingMarkdown(VerticalGroup):
    DEFAULT_CSS = """
    StreamingMarkdown { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self._text = ""
        self._deltas: list[str] = []
        self._segments = [MarkdownSegment()]
        self._segment_start = 0  # offset in text_so_far where the last segment begins
        self._streaming = streaming
        self._flush_timer: Timer | None = None
        if text:
            self.text_so_far = text
            self._flush()

    def compose(self) -> Any:
        yield from self._segments

    @property
    def live(self) -> MarkdownSegment:
        return self._segments[-1]

    def feed(self, delta: str) -> None:
        if not delta:
            return
        self._deltas.append(delta)  # joined on flush: `+=` per delta copies the whole reply each time
        if not self.is_mounted:
            self._flush()  # composed with this text on mount
        elif self._flush_timer is None:
            self._flush_timer = self.set_timer(FRAME_S, self._flush)

    @property
    def text_so_far(self) -> str:
        if self._deltas:
            self._text = self._text + "".join(self._deltas)
            self._deltas.clear()
        return self._text

    @text_so_far.setter
    def text_so_far(self, value: str) -> None:
        self._text = value
        self._deltas.clear()

    def _flush(self) -> None:
        self._flush_timer = None
        blocks = split_blocks(self.text_so_far[self._segment_start :])
        fresh: list[MarkdownSegment] = []
        # A segment that grew past SEGMENT_CHARS keeps its finished blocks; the rest starts a new one.
        while len(blocks) > 1:
            taken, size = 0, 0
            while taken < len(blocks) - 1 and size < SEGMENT_CHARS:
                size += len(blocks[taken])
                taken += 1
            if size < SEGMENT_CHARS:
                break
            segment = self.live if not fresh else fresh[-1]
            segment.set_blocks(blocks[:taken])
            segment.add_class("-settled")
            self._segment_start += size
            blocks = blocks[taken:]
            next_segment = MarkdownSegment()
            self._segments.append(next_segment)
            fresh.append(next_segment)
        self.live.set_blocks(blocks)
        if fresh and self.is_mounted:
            self.mount_all(fresh)

    def close(self, final_text: str | None = None) -> None:
        """No more deltas. `final_text`, when it differs from what streamed, replaces the content."""
        self._streaming = False
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if final_text is not None and final_text != self.text_so_far:
            self.text_so_far = final_text
            self._segment_start = 0
            for segment in self._segments[1:]:
                segment.remove()
            self._segments = self._segments[:1]
            self.live.remove_class("-settled")
        self._flush()

    @property
    def is_streaming(self) -> bool:
        return self._streaming or self._flush_timer is not None

    async def wait_settled(self) -> None:
        """Kept for callers that wait for the last render; rendering is synchronous now."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush()
