"""`atomic --list-models` prints the catalog's figures, and a models.json override replaces them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from atomic.cli import main


def _rows(out: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines()]


def test_list_models_shows_context_output_price_and_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-models", "claude-opus-4-6"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows[0] == ["provider", "model", "context", "max-out", "$/MTok", "in/out", "thinking", "images"]
    assert ["anthropic", "claude-opus-4-6", "1M", "128K", "5/25", "yes", "yes"] in rows


def test_list_models_names_retired_and_deprecated_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-models", "sonnet"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert rows[0][-1] == "status"
    assert ["anthropic", "claude-sonnet-4-5", "200K", "64K", "3/15", "yes", "yes", "retired"] in rows
    # A current model has nothing in the column.
    assert ["anthropic", "claude-sonnet-4-6", "1M", "128K", "3/15", "yes", "yes"] in rows
    assert main(["--list-models", "gpt-5-nano"]) == 0
    assert _rows(capsys.readouterr().out)[1][-1] == "deprecated"


def test_list_models_marks_local_models_free(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list-models", "ollama llama3.1"]) == 0
    assert ["ollama", "llama3.1:8b", "131.1K", "16.4K", "-", "no", "no"] in _rows(capsys.readouterr().out)


def test_list_models_reflects_model_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    agent = Path(os.environ["ATOMIC_CODING_AGENT_DIR"])
    agent.mkdir(parents=True, exist_ok=True)
    overrides = {"contextWindow": 200000, "cost": {"input": 4, "output": 20}}
    (agent / "models.json").write_text(
        json.dumps({"providers": {"anthropic": {"modelOverrides": {"claude-opus-4-6": overrides}}}}),
        encoding="utf-8",
    )
    assert main(["--list-models", "claude-opus-4-6"]) == 0
    captured = capsys.readouterr()
    assert ["anthropic", "claude-opus-4-6", "200K", "128K", "4/20", "yes", "yes"] in _rows(captured.out)
