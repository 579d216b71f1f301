"""ModelSelection alone: starting, levels, cycling through scoped models, refusals, restoring a branch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atomic.core.engine.errors import PromptRejected
from atomic.core.engine.model_selection import ModelSelection, scripted_model
from atomic.core.events import Event
from atomic.core.extensions.hooks import HookBus
from atomic.core.model_types import Model
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.session.store import SessionStore
from atomic.core.settings import SettingsManager


class Harness:
    def __init__(self, agent_dir: Path, cwd: Path) -> None:
        self.settings = SettingsManager(agent_dir, cwd)
        self.store = SessionStore.create(None, cwd)
        self.events: list[Event] = []
        self.hooks = HookBus()
        self.selection = ModelSelection(
            agent_dir=agent_dir,
            settings=self.settings,
            active_store=lambda: self.store,
            emit=self.events.append,
            hooks=self.hooks,
        )

    def entries(self, kind: str) -> list[dict[str, object]]:
        return [r.data for r in self.store.records if r.type == kind]


def other_scripted(model_id: str, reasoning: bool = True) -> Model:
    return scripted_model().model_copy(update={"id": model_id, "reasoning": reasoning})


def test_levels_are_clamped_recorded_announced_and_persisted(agent_dir: Path, tmp_path: Path) -> None:
    h = Harness(agent_dir, tmp_path)
    sel = h.selection
    sel.start_with(sel.use_scripted(ScriptedProvider([])))
    assert h.entries("model_change") == [] and h.events == []  # starting records nothing
    change = sel.set_thinking_level("high", persist=True)
    assert (change.level, change.provider, change.model_id) == ("high", "scripted", "scripted-model")
    assert [e["thinkingLevel"] for e in h.entries("thinking_level_change")] == ["high"]
    assert [e.to_wire() for e in h.events] == [{"type": "thinking_level_changed", "level": "high"}]
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved["defaultThinkingLevel"] == "high" and saved["modelThinkingLevels"] == {"scripted/scripted-model": "high"}
    assert sel.model is not None and sel.saved_level_for(sel.model) == "high"
    with pytest.raises(ValueError, match="Invalid thinking level"):
        sel.set_thinking_level("loud")


def test_cycling_goes_through_scoped_models_with_their_levels(agent_dir: Path, tmp_path: Path) -> None:
    h = Harness(agent_dir, tmp_path)
    sel = h.selection
    first, second = other_scripted("one"), other_scripted("two")
    sel.add_extra_model(first)
    sel.add_extra_model(second)
    sel.set_scoped([(first, None), (second, "low")])
    sel.start_with(first)
    result = sel.cycle_model()
    assert result is not None and result.is_scoped is True and result.model == second
    assert sel.model == second and sel.thinking_level == "low"
    assert [e["modelId"] for e in h.entries("model_change")] == ["two"]
    sel.cycle_model(backwards=True)
    assert sel.model == first


def test_prompts_are_refused_without_a_usable_model(agent_dir: Path, tmp_path: Path) -> None:
    h = Harness(agent_dir, tmp_path)
    sel = h.selection
    with pytest.raises(PromptRejected):
        sel.ensure_can_prompt()
    warning = sel.block_on_saved_default("nosuchprovider", "x")
    assert warning is not None and "provider nosuchprovider is not known" in warning
    assert sel.model_block is not None and sel.model_block[0] == "configured-provider-unsupported"
    sel.start_with(sel.use_scripted(ScriptedProvider([])))
    with pytest.raises(PromptRejected, match="unavailable or unsupported"):
        sel.ensure_can_prompt()
    sel.set_model("scripted", "scripted-model")  # choosing a model lifts the block
    sel.ensure_can_prompt()
    assert sel.model_block is None
    with pytest.raises(ValueError, match="Model not found"):
        sel.set_model("scripted", "missing")


def test_restore_applies_a_branch_model_without_recording_it(agent_dir: Path, tmp_path: Path) -> None:
    h = Harness(agent_dir, tmp_path)
    sel = h.selection
    plain, thinker = other_scripted("plain", reasoning=False), other_scripted("thinker")
    sel.add_extra_model(plain)
    sel.add_extra_model(thinker)
    sel.start_with(plain)
    sel.restore("scripted", "thinker", "high")
    assert sel.model == thinker and sel.thinking_level == "high"
    assert h.entries("model_change") == [] and h.entries("thinking_level_change") == []
    # Off on the plain model; the reasoning model brings the default level, then the branch's own.
    assert [e.to_wire().get("level", e.type) for e in h.events] == ["medium", "model_changed", "high"]
    sel.record_current()
    assert [e["modelId"] for e in h.entries("model_change")] == ["thinker"]


def test_the_key_check_of_a_prompt_builds_only_its_own_providers_models(
    agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atomic.core.models.registry import ModelRegistry

    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    selection = Harness(agent_dir, tmp_path).selection
    model = selection.registry.find("anthropic", "claude-sonnet-4-5")
    assert model is not None
    built: list[str] = []
    original = ModelRegistry._provider_models
    monkeypatch.setattr(ModelRegistry, "_provider_models", lambda self, name: built.append(name) or original(self, name))
    assert selection.has_auth(model)
    assert set(built) == {"anthropic"}
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert not selection.has_auth(model)


@pytest.mark.parametrize(("base_url", "https"), [("https://api.example.com/v1", True), ("http://127.0.0.1:8080/v1", False)])
def test_the_warm_up_is_told_whether_the_model_talks_tls(
    base_url: str, https: bool, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atomic.core.providers import registry

    started: list[tuple[str, bool]] = []
    monkeypatch.setattr(registry, "start_provider_warmup", lambda api, https=False: started.append((api, https)))
    h = Harness(agent_dir, tmp_path)
    h.selection.start_with(scripted_model().model_copy(update={"api": "openai-responses", "base_url": base_url}))
    h.selection.warm_up_provider()
    assert started == [("openai-responses", https)]
