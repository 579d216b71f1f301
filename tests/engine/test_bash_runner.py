"""BashRunner alone: request ids, results handed to their owner, cancelling one or all, shutdown."""

from __future__ import annotations

import asyncio
from pathlib import Path

from atomic.core.engine.bash_runner import BashRunner
from atomic.core.engine.owned_messages import MessageOwner
from atomic.core.messages import BashExecutionMessage
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings

SLOW = "echo started; sleep 5"


class Harness:
    def __init__(self, cwd: Path) -> None:
        self.store = SessionStore.create(None, cwd)
        self.stored: list[tuple[MessageOwner, BashExecutionMessage]] = []
        self.runner = BashRunner(
            cwd=cwd,
            settings=lambda: Settings.model_validate({}),
            owner_here=lambda: MessageOwner(self.store, self.store.leaf_id),
            store_result=lambda owner, message: self.stored.append((owner, message)),
        )


async def until_running(runner: BashRunner, count: int) -> None:
    for _ in range(200):
        if len(runner.tasks) >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("bash requests did not start")


async def test_result_goes_to_the_owner_the_request_started_with(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    owner_store = h.store
    task = asyncio.ensure_future(h.runner.run("echo hi; sleep 0.2", exclude_from_context=True))
    await until_running(h.runner, 1)
    assert h.runner.is_running
    h.store = SessionStore.create(None, tmp_path)  # the active session is replaced meanwhile
    message = await task
    assert message.output.strip() == "hi" and message.exit_code == 0 and message.exclude_from_context is True
    assert len(h.stored) == 1
    owner, stored = h.stored[0]
    assert owner.store is owner_store and stored is message
    assert not h.runner.is_running


async def test_cancel_one_request_by_id_leaves_the_other_running(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    first = asyncio.ensure_future(h.runner.run(SLOW, request_id="a"))
    second = asyncio.ensure_future(h.runner.run(SLOW, request_id="b"))
    await until_running(h.runner, 2)
    assert h.runner.abort("missing") is False
    assert h.runner.abort("a") is True
    message = await first
    assert message.cancelled is True
    assert list(h.runner.tasks) == ["b"]
    assert h.runner.abort() is True
    assert (await second).cancelled is True
    assert h.runner.abort() is False
    assert [m.cancelled for _, m in h.stored] == [True, True]


async def test_a_taken_request_id_gets_a_suffix(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    first = asyncio.ensure_future(h.runner.run(SLOW, request_id="same"))
    await until_running(h.runner, 1)
    second = asyncio.ensure_future(h.runner.run(SLOW, request_id="same"))
    await until_running(h.runner, 2)
    ids = list(h.runner.tasks)
    assert ids[0] == "same" and ids[1].startswith("same-") and len(set(ids)) == 2
    await h.runner.shutdown()
    assert first.done() and second.done()
    assert len(h.stored) == 2 and all(m.cancelled for _, m in h.stored)
