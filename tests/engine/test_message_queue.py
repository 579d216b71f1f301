"""The steering / follow-up queue alone: delivery modes, clearing, what it shows."""

from __future__ import annotations

from atomic.core.agent.queues import MessageQueue, QueuedMessage


def filled(mode: str) -> MessageQueue:
    queue = MessageQueue(mode)
    for text in ("one", "two", "three"):
        queue.push(QueuedMessage(text))
    return queue


def test_one_at_a_time_hands_out_the_oldest_message_per_poll() -> None:
    queue = filled("one-at-a-time")
    assert [m.text for m in queue.poll()] == ["one"]
    assert queue.texts() == ["two", "three"] and len(queue) == 2


def test_all_hands_out_everything_at_once() -> None:
    queue = filled("all")
    assert [m.text for m in queue.poll()] == ["one", "two", "three"]
    assert len(queue) == 0 and queue.poll() == []


def test_clear_returns_what_was_queued() -> None:
    queue = filled("one-at-a-time")
    queue.mode = "all"  # the mode can change while messages wait
    assert [m.text for m in queue.clear()] == ["one", "two", "three"]
    assert queue.texts() == [] and queue.poll() == []
