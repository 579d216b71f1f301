"""Markdown that grows while a reply streams.

Deltas arrive synchronously from engine events; `feed` only buffers them. One pump task per block
joins whatever piled up and calls `Markdown.append`, which re-parses only from the last top-level
block, so settled paragraphs are never rebuilt and slow frames simply coalesce more text.
"""

from __future__ import annotations

import asyncio

from textual.widgets import Markdown


class StreamingMarkdown(Markdown):
    DEFAULT_CSS = """
    StreamingMarkdown { margin: 0; padding: 0; background: transparent; }
    StreamingMarkdown > MarkdownBlock:last-child { margin-bottom: 0; }
    """

    def __init__(self, text: str = "", *, streaming: bool = False, classes: str | None = None) -> None:
        super().__init__(text if not streaming else "", classes=classes)
        self.text_so_far = text if not streaming else ""
        self._feed_pending: list[str] = [text] if streaming and text else []
        self._feed_wake = asyncio.Event()
        self._feed_streaming = streaming
        self._feed_closed = not streaming
        self._pump_task: asyncio.Task[None] | None = None

    def on_mount(self) -> None:
        if self._feed_streaming:
            self._pump_task = asyncio.create_task(self._pump())
            if self._feed_pending:
                self._feed_wake.set()

    def feed(self, delta: str) -> None:
        if not delta:
            return
        self.text_so_far += delta
        if self._feed_closed:
            # A late delta after close: fall back to a full update rather than lose text.
            self.update(self.text_so_far)
            return
        self._feed_pending.append(delta)
        self._feed_wake.set()

    def close(self, final_text: str | None = None) -> None:
        """No more deltas. `final_text`, when it differs from what streamed, replaces the content."""
        if final_text is not None and final_text != self.text_so_far:
            self._feed_pending.clear()
            self.text_so_far = final_text
            self._feed_closed = True
            self._feed_wake.set()
            if self._pump_task is None:
                self.update(final_text)
            else:
                self._feed_replace_on_exit = True
            return
        self._feed_closed = True
        self._feed_wake.set()

    _feed_replace_on_exit = False

    @property
    def is_streaming(self) -> bool:
        return not self._feed_closed or bool(self._feed_pending)

    async def _pump(self) -> None:
        try:
            while True:
                await self._feed_wake.wait()
                self._feed_wake.clear()
                if self._feed_pending:
                    chunk = "".join(self._feed_pending)
                    self._feed_pending.clear()
                    await self.append(chunk)
                if self._feed_closed and not self._feed_pending:
                    break
            if self._feed_replace_on_exit:
                await self.update(self.text_so_far)
        except asyncio.CancelledError:
            pass
        finally:
            self._pump_task = None

    async def wait_settled(self) -> None:
        task = self._pump_task
        if task is not None:
            await asyncio.shield(task)

    def on_unmount(self) -> None:
        if self._pump_task is not None:
            self._pump_task.cancel()
