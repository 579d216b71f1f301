"""Project trust: flags, the defaultProjectTrust setting, decisions saved per folder (closest ancestor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atomic.core.trust import TrustStore, resolve_trust


def test_saved_decisions_apply_to_the_folder_and_below_closest_wins(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    outer = tmp_path / "work"
    inner = outer / "client" / "repo"
    inner.mkdir(parents=True)
    store = TrustStore(agent)
    assert resolve_trust(inner, agent).undecided
    store.save(outer, True)
    decision = resolve_trust(inner, agent)
    assert decision.trusted and decision.source == "saved" and decision.decided_by == outer.resolve()
    store.save(outer / "client", False)
    assert not resolve_trust(inner, agent).trusted
    assert resolve_trust(outer, agent).trusted
    store.forget(outer / "client")
    assert resolve_trust(inner, agent).trusted
    data = json.loads((agent / "trust.json").read_text())
    assert list(data["folders"]) == [str(outer.resolve())]
    assert (agent / "trust.json").stat().st_mode & 0o777 == 0o600


def test_flags_beat_the_setting_which_beats_saved_decisions(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    TrustStore(agent).save(tmp_path, False)
    assert resolve_trust(tmp_path, agent, setting="always").trusted
    assert resolve_trust(tmp_path, agent, setting="always").source == "setting"
    assert not resolve_trust(tmp_path, agent, setting="never", approve=None).trusted
    assert resolve_trust(tmp_path, agent, setting="never", approve=True).trusted
    assert not resolve_trust(tmp_path, agent, setting="always", approve=False).trusted
    assert resolve_trust(tmp_path, agent, setting="ask").source == "saved"
    assert resolve_trust(tmp_path, agent, setting="bogus").source == "saved"
    once = resolve_trust(tmp_path / "x", tmp_path / "other").trusted_once()
    assert once.trusted and once.source == "once"


def test_a_broken_trust_file_decides_nothing_and_is_never_overwritten(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "trust.json").write_text("{broken")
    assert resolve_trust(tmp_path, agent).undecided
    with pytest.raises(ValueError, match="not valid JSON"):
        TrustStore(agent).save(tmp_path, True)
    assert (agent / "trust.json").read_text() == "{broken"
