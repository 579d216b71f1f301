"""PermissionModes alone: switching the policy's mode, saving it on request, and the mode before plan."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atomic.core.engine.permission_modes import PermissionModes
from atomic.core.events import Event, PermissionModeChanged
from atomic.core.permissions import PermissionPolicy
from atomic.core.settings import SettingsManager


def make(tmp_path: Path) -> tuple[PermissionModes, PermissionPolicy, list[Event], Path]:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    policy = PermissionPolicy(cwd=tmp_path, agent_dir=agent_dir)
    policy.mode = "ask"
    events: list[Event] = []
    return PermissionModes(policy, SettingsManager(agent_dir, tmp_path), events.append), policy, events, agent_dir


def test_a_switch_changes_the_policy_and_is_announced_but_saved_only_on_request(tmp_path: Path) -> None:
    modes, policy, events, agent_dir = make(tmp_path)
    modes.set_mode("accept-edits")
    assert policy.mode == "accept-edits"
    assert events == [PermissionModeChanged(mode="accept-edits")]
    assert not (agent_dir / "settings.json").exists()
    modes.set_mode("yolo", persist=True)
    assert json.loads((agent_dir / "settings.json").read_text())["permissionMode"] == "yolo"


def test_entering_plan_remembers_the_mode_before_it_once(tmp_path: Path) -> None:
    modes, policy, _events, _dir = make(tmp_path)
    modes.set_mode("accept-edits")
    modes.set_mode("plan")
    modes.set_mode("plan")  # already planning: the mode to go back to stays
    assert policy.mode == "plan" and modes.before_plan == "accept-edits"


def test_an_unknown_mode_changes_nothing(tmp_path: Path) -> None:
    modes, policy, events, _dir = make(tmp_path)
    with pytest.raises(ValueError, match="Unknown permission mode"):
        modes.set_mode("sometimes")
    assert policy.mode == "ask" and events == []
