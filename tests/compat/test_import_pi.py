"""`atomic --import-pi`: copy pi's configuration into Atomic's agent dir, never overwriting."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from atomic.cli import main


@pytest.fixture
def pi_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pi = tmp_path / "pi-agent"
    (pi / "prompts").mkdir(parents=True)
    (pi / "skills" / "review").mkdir(parents=True)
    (pi / "models.json").write_text(json.dumps({"providers": {"local": {"baseUrl": "http://127.0.0.1:1"}}}))
    (pi / "settings.json").write_text(json.dumps({"defaultProvider": "anthropic"}))
    (pi / "auth.json").write_text(json.dumps({"anthropic": {"type": "api_key", "key": "sk-test"}}))
    (pi / "auth.json").chmod(0o644)
    (pi / "prompts" / "fix.md").write_text("Fix $1\n")
    (pi / "skills" / "review" / "SKILL.md").write_text("---\nname: review\ndescription: d\n---\nbody\n")
    script = pi / "skills" / "review" / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (pi / "sessions").mkdir()
    (pi / "sessions" / "x.jsonl").write_text("{}\n")
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(pi))
    return pi


def test_copies_every_file_and_keeps_auth_private(
    pi_dir: Path, agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--import-pi"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "copied models.json" in out and "copied settings.json" in out and "copied auth.json" in out
    assert "copied prompts/fix.md" in out and "copied skills/review/SKILL.md" in out
    assert (agent_dir / "prompts" / "fix.md").read_text() == "Fix $1\n"
    assert json.loads((agent_dir / "auth.json").read_text())["anthropic"]["key"] == "sk-test"
    assert stat.S_IMODE((agent_dir / "auth.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((agent_dir / "skills" / "review" / "run.sh").stat().st_mode) & 0o111
    # Sessions are not configuration: they stay where pi keeps them.
    assert not (agent_dir / "sessions" / "x.jsonl").exists()
    assert out[-1].startswith("Imported 6 of 6 files")


def test_existing_files_are_skipped_not_overwritten(
    pi_dir: Path, agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (agent_dir / "settings.json").write_text('{"theme": "light"}')
    assert main(["--import-pi"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert any(line.startswith("skipped settings.json (already in") for line in out)
    assert (agent_dir / "settings.json").read_text() == '{"theme": "light"}'
    # A second run copies nothing and says so for every file.
    assert main(["--import-pi"]) == 0
    again = capsys.readouterr().out.splitlines()
    assert not any(line.startswith("copied") for line in again)
    assert sum(line.startswith("skipped") for line in again) == 6


def test_pi_folder_used_as_atomic_dir_has_nothing_to_import(
    pi_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ATOMIC_CODING_AGENT_DIR")
    assert main(["--import-pi"]) == 0
    assert "nothing to import" in capsys.readouterr().out
    assert not list(pi_dir.glob(".*.import"))


def test_missing_pi_dir_is_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "absent"))
    assert main(["--import-pi"]) == 0
    assert "No pi agent dir" in capsys.readouterr().out


def test_pi_only_flags_are_accepted_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--no-themes", "--verbose", "--list-models", "zzz-no-such-model"]) == 0
    err = capsys.readouterr().err
    assert "--no-themes is accepted for pi compatibility and ignored" in err
    assert "--verbose is accepted" in err
