"""CompactionRunner alone, on a fake host: threshold check, a planned compaction, cancelling it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.compaction_runner import CompactionFailed, CompactionRunner
from atomic.core.engine.model_selection import scripted_model
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.messages import AssistantMessage, TextContent, UserMessage
from atomic.core.model_types import Model
from atomic.core.providers.base import Provider
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.records import ContextUsage
from atomic.core.session.context import ContextItem
from atomic.core.session.store import SessionStore
from atomic.core.settings import Settings

LONG = "\n".join(f"detail line {i}" for i in range(30))


class FakeHost:
    def __init__(self, tmp_path: Path, planner: list[dict[str, Any]]) -> None:
        self.model: Model | None = scripted_model()
        self.settings = Settings.model_validate({})
        self.store = SessionStore.create(None, tmp_path)
        self.hooks = HookBus()
        self.context_items: list[ContextItem] = []
        self.auto_compaction_enabled = True
        self.events: list[Event] = []
        self.usage: ContextUsage | None = None
        self.models = self  # the planner's key and provider
        self.reloads = 0
        self.provider = ScriptedProvider(planner)
        for i in range(3):
            self.add(UserMessage(content=f"question {i}\n{LONG}"))
            self.add(AssistantMessage(content=[TextContent(text=f"answer {i}")]))

    def add(self, message: Any) -> None:
        entry = self.store.append("message", message=message.to_wire())
        self.context_items.append(ContextItem(entry["id"], message))

    def emit(self, event: Event) -> None:
        self.events.append(event)

    def context_usage(self) -> ContextUsage | None:
        return self.usage

    async def request_credentials(self, model: Model, messages: list[Any]) -> tuple[str | None, dict[str, str]]:
        return None, {}

    async def provider_for(self, model: Model) -> Provider:
        return self.provider

    def reload_context(self) -> None:
        self.reloads += 1

    def types(self) -> list[str]:
        return [e.type for e in self.events]


def test_threshold_is_the_window_minus_the_reserve(tmp_path: Path) -> None:
    host = FakeHost(tmp_path, [])
    runner = CompactionRunner(host)
    assert host.model is not None
    limit = host.model.context_window - host.settings.compaction.reserve_tokens
    host.usage = ContextUsage(limit, host.model.context_window, None)
    assert runner.needs_threshold_compaction() is False
    host.usage = ContextUsage(limit + 1, host.model.context_window, None)
    assert runner.needs_threshold_compaction() is True
    host.auto_compaction_enabled = False
    assert runner.needs_threshold_compaction() is False
    host.auto_compaction_enabled = True
    host.usage = ContextUsage(None, host.model.context_window, None)
    assert runner.needs_threshold_compaction() is False


async def test_manual_compaction_appends_the_entry_and_reloads(tmp_path: Path) -> None:
    host = FakeHost(tmp_path, [{"text": "2,20\n"}])
    runner = CompactionRunner(host)
    data = (await runner.compact()).result
    assert data["rung"] == "planned" and data["backupPath"] is None  # in memory: nothing to back up
    assert "(filtered 19 lines)" in data["compactedText"]
    entries = [r for r in host.store.records if r.type == "compaction"]
    assert len(entries) == 1 and entries[0].data["summary"] == data["compactedText"]
    assert host.reloads == 1
    assert host.types() == ["compaction_start", "compaction_end"]
    assert not runner.is_compacting


async def test_automatic_compaction_failure_is_reported_not_raised(tmp_path: Path) -> None:
    host = FakeHost(tmp_path, [{"text": "no ranges here"}])
    runner = CompactionRunner(host)
    assert await runner.compact_for("threshold", False) is False
    end = host.events[-1].to_wire()
    assert end["type"] == "compaction_end" and end["errorMessage"].startswith("Auto-compaction failed: ")
    assert host.reloads == 0 and not any(r.type == "compaction" for r in host.store.records)


async def test_cancel_ends_a_manual_compaction_as_aborted(tmp_path: Path) -> None:
    host = FakeHost(tmp_path, [{"hang": True, "text": "2,"}])
    runner = CompactionRunner(host)
    task = asyncio.ensure_future(runner.compact())
    for _ in range(100):
        if runner.is_compacting:
            break
        await asyncio.sleep(0.01)
    assert runner.is_compacting
    assert runner.cancel() is True
    with pytest.raises(CompactionFailed, match="aborted"):
        await task
    await runner.wait_idle()
    assert not runner.is_compacting and runner.cancel() is False
    assert host.events[-1].to_wire()["aborted"] is True
