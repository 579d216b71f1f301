"""Steering and follow-up queues."""

from __future__ import annotations

from dataclasses import dataclass, field

from atomic.core.messages import ImageContent


@dataclass
class QueuedMessage:
    text: str
    images: list[ImageContent] = field(default_factory=list)
    # When it was queued (ms since the epoch; 0 when unknown): a restored queue leaves out what was
    # stored after this moment (session/queue_file.py).
    queued_at: int = 0


class MessageQueue:
    """FIFO with a delivery mode: `one-at-a-time` hands out one message per poll, `all` everything."""

    def __init__(self, mode: str = "one-at-a-time") -> None:
        self.mode = mode
        self.items: list[QueuedMessage] = []

    def push(self, item: QueuedMessage) -> None:
        self.items.append(item)

    def poll(self) -> list[QueuedMessage]:
        if not self.items:
            return []
        if self.mode == "all":
            taken, self.items = self.items, []
            return taken
        return [self.items.pop(0)]

    def clear(self) -> list[QueuedMessage]:
        taken, self.items = self.items, []
        return taken

    def texts(self) -> list[str]:
        return [item.text for item in self.items]

    def __len__(self) -> int:
        return len(self.items)
