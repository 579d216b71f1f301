"""The engine contract: `open_engine` and the typed records a frontend reads from `Engine`."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from atomic.core.contract import (
    ApprovalRequest,
    Decision,
    Engine,
    ModelCycle,
    QueueSnapshot,
    SessionOptions,
    SessionState,
    SessionStats,
    open_engine,
)
from atomic.core.events import Event
from atomic.core.providers.scripted import ScriptedProvider

OpenEngine = Callable[..., Any]


@pytest.fixture
async def engine_for(tmp_path: Path) -> AsyncIterator[OpenEngine]:
    engines: list[Engine] = []
    cwd = tmp_path / "project"
    cwd.mkdir()

    async def open_one(responses: list[dict[str, Any]] | None = None, **kwargs: Any) -> Engine:
        engine = await open_engine(SessionOptions(cwd=cwd, scripted=ScriptedProvider(responses or []), **kwargs))
        engines.append(engine)
        return engine

    yield open_one
    for engine in engines:
        await engine.shutdown()


async def test_state_is_a_frozen_snake_case_record(engine_for: OpenEngine) -> None:
    engine = await engine_for()
    state = engine.state()
    assert isinstance(state, SessionState)
    assert state.model is not None and state.model.id == "scripted-model"
    assert state.is_streaming is False and state.message_count == 0 and state.pending_message_count == 0
    assert state.session_file == engine.session_file and state.session_file is not None
    assert state.model_fallback is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.thinking_level = "high"  # type: ignore[misc]


async def test_prompt_then_stats_messages_and_events(engine_for: OpenEngine) -> None:
    engine = await engine_for([{"text": "Hello there"}])
    seen: list[Event] = []
    unsubscribe = engine.subscribe(seen.append)
    await engine.prompt("hi")
    await engine.wait_idle()
    unsubscribe()
    assert [e.type for e in seen][-1] == "agent_settled"
    assert engine.last_assistant_text() == "Hello there"
    assert engine.message_count() == 2 and len(engine.messages()) == 2
    stats = engine.session_stats()
    assert isinstance(stats, SessionStats)
    assert (stats.user_messages, stats.assistant_messages, stats.total_messages) == (1, 1, 2)
    assert stats.tokens.total == stats.tokens.input + stats.tokens.output + stats.tokens.cache_read
    usage = engine.context_usage()
    assert usage is not None and usage.context_window == 200000 and usage.tokens is not None
    stored = engine.stored_messages()
    assert [type(m) for m in stored] == [dict, dict]  # recorded by this process: no stored text yet
    assert stored[0]["role"] == "user" and stored[1]["role"] == "assistant"


async def test_queue_snapshot_while_streaming(engine_for: OpenEngine) -> None:
    engine = await engine_for([{"text": "hanging", "hang": True}])
    await engine.prompt("go")
    await asyncio.sleep(0.05)
    assert engine.is_streaming
    await engine.steer("steer me")
    await engine.follow_up("later")
    assert engine.queue() == QueueSnapshot(("steer me",), ("later",))
    removed = engine.clear_queue()
    assert removed == QueueSnapshot(("steer me",), ("later",)) and len(engine.queue()) == 0
    await engine.abort()
    assert engine.is_streaming is False


async def test_tree_fork_messages_labels_and_navigation(engine_for: OpenEngine) -> None:
    engine = await engine_for([{"text": "one"}, {"text": "two"}])
    for text in ("first", "second"):
        await engine.prompt(text)
        await engine.wait_idle()
    forks = engine.sessions.fork_messages()
    assert [m.text for m in forks] == ["first", "second"]
    engine.sessions.set_label(forks[0].entry_id, "start")
    tree = engine.sessions.tree()
    node = tree.roots[0]
    # Walk down the single chain to the labelled user message.
    found = None
    stack = [node]
    while stack:
        current = stack.pop()
        if current.id == forks[0].entry_id:
            found = current
        stack.extend(current.children)
    assert found is not None and found.label == "start"
    stored = engine.sessions.stored_tree()
    assert stored.leaf_id == tree.leaf_id and forks[0].entry_id in stored.lines
    text = await engine.sessions.navigate_to(forks[1].entry_id)
    assert text == "second" and engine.message_count() == 2


async def test_cycle_model_returns_a_record_or_none(engine_for: OpenEngine) -> None:
    engine = await engine_for()
    # Only the scripted model has a key: nothing to cycle to.
    assert engine.models.cycle_model() is None
    assert ModelCycle.__dataclass_params__.frozen  # type: ignore[attr-defined]


async def test_thinking_level_change_is_clamped_and_typed(engine_for: OpenEngine) -> None:
    engine = await engine_for()
    change = engine.models.set_thinking_level("high")
    assert (change.level, change.provider, change.model_id) == ("high", "scripted", "scripted-model")
    with pytest.raises(ValueError):
        engine.models.set_thinking_level("loud")


async def test_providers_list_auth_status_without_keys(engine_for: OpenEngine) -> None:
    engine = await engine_for()
    providers = {p.provider: p for p in engine.models.providers()}
    anthropic = providers["anthropic"]
    assert anthropic.status.configured is False and anthropic.env_var == "ANTHROPIC_API_KEY"
    engine.models.login_provider("anthropic", "sk-test")
    assert engine.models.provider_auth("anthropic").status.source == "stored"
    result = engine.models.logout_provider("anthropic")
    assert result.status.configured is False and all(m.provider != "anthropic" for m in result.models)


async def test_commands_name_prompt_templates(engine_for: OpenEngine, agent_dir: Path) -> None:
    prompts = agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review it\n---\nReview $1", encoding="utf-8")
    engine = await engine_for()
    commands = {c.name: c for c in engine.commands()}
    assert commands["review"].source == "prompt" and commands["review"].description == "Review it"


async def test_trust_status_and_session_listing(engine_for: OpenEngine) -> None:
    engine = await engine_for([{"text": "ok"}])
    status = engine.trust.status(with_skipped=True)
    assert status is not None and status.cwd == engine.cwd and status.trusted is False
    assert status.source == "undecided" and status.skipped == () and status.how_to_trust is not None
    plain = engine.trust.status()
    assert plain is not None and plain.skipped is None and plain.how_to_trust is None
    await engine.prompt("remember me")
    await engine.wait_idle()
    summaries = engine.sessions.list_sessions()
    assert [s.first_message for s in summaries] == ["remember me"]
    assert summaries[0].path == engine.session_file


EXTENSION = """
def activate(atomic):
    async def hello(args, ctx):
        ctx.notify(f"Hello, {args}!")

    atomic.register_command("hello", hello, description="Say hello",
                            complete=lambda prefix: [n for n in ("world", "there") if n.startswith(prefix)])
"""


async def test_extension_commands_and_their_completions(engine_for: OpenEngine, tmp_path: Path) -> None:
    path = tmp_path / "ext" / "hello.py"
    path.parent.mkdir()
    path.write_text(EXTENSION, encoding="utf-8")
    engine = await engine_for(extensions=[str(path)])
    [command] = [c for c in engine.commands() if c.source == "extension"]
    assert (command.name, command.description, command.path) == ("hello", "Say hello", str(path.resolve()))
    assert engine.complete_command_argument("hello", "w") == ["world"]
    assert engine.complete_command_argument("nope", "") == []


async def test_a_frontend_approver_replaces_the_dialog_and_is_removed_again(engine_for: OpenEngine) -> None:
    engine = await engine_for([
        {"toolCalls": [{"name": "write", "arguments": {"path": "a.txt", "content": "x"}}]},
        {"text": "done"},
        {"toolCalls": [{"name": "write", "arguments": {"path": "b.txt", "content": "y"}}]},
        {"text": "done"},
    ])
    engine.set_permission_mode("ask")
    asked: list[str] = []

    async def refuse(request: ApprovalRequest) -> Decision:
        asked.append(request.tool_name)
        return "reject_once"

    engine.set_approver(refuse)
    await engine.prompt("write a")
    await engine.wait_idle()
    assert asked == ["write"] and not (engine.cwd / "a.txt").exists()
    # Without a frontend approver the engine asks through the extension UI; with no UI attached
    # nobody can answer, so the call is refused without reaching the old approver.
    engine.set_approver(None)
    await engine.prompt("write b")
    await engine.wait_idle()
    assert asked == ["write"] and not (engine.cwd / "b.txt").exists()
