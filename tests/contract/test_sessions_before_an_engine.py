"""What a frontend asks before an engine is open: stored sessions and whether any model has a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.contract import (
    SessionOptions,
    find_session_file,
    has_usable_model,
    list_session_summaries,
    open_engine,
    session_folder,
)
from atomic.core.providers.scripted import ScriptedProvider


async def test_a_stored_session_is_listed_and_found_by_id_prefix(tmp_path: Path) -> None:
    engine = await open_engine(SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([{"text": "hi"}])))
    await engine.prompt("hello there")
    await engine.wait_idle()
    await engine.shutdown()
    folder = session_folder(tmp_path)
    assert engine.sessions.session_dir == folder
    [summary] = list_session_summaries(folder)
    assert (summary.id, summary.first_message, summary.path) == (engine.session_id, "hello there", engine.session_file)
    assert [s.id for s in list_session_summaries(None)] == [engine.session_id]
    assert find_session_file(engine.session_id[:8], folder) == engine.session_file
    assert find_session_file("no-such-id", folder) is None


def test_a_stored_key_makes_a_model_usable(agent_dir: Path) -> None:
    assert has_usable_model(agent_dir) is False
    (agent_dir / "auth.json").write_text('{"anthropic": {"type": "api_key", "key": "sk-test"}}', encoding="utf-8")
    assert has_usable_model(agent_dir) is True


def test_an_environment_key_makes_a_model_usable(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert has_usable_model(agent_dir) is True
