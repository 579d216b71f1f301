from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from atomic.core.auth import AuthStorage, AuthStorageError, resolve_value


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_set_api_key_writes_private_file_and_folder(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    auth = AuthStorage(agent)
    assert not auth.path.exists()

    auth.set_api_key("anthropic", "sk-ant-secret")

    assert _mode(agent) == 0o700
    assert _mode(auth.path) == 0o600
    assert json.loads(auth.path.read_text()) == {"anthropic": {"type": "api_key", "key": "sk-ant-secret"}}
    assert auth.get("anthropic") == {"type": "api_key", "key": "sk-ant-secret"}


def test_existing_loose_folder_is_tightened(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir(mode=0o755)
    os.chmod(agent, 0o755)
    AuthStorage(agent).set_api_key("openai", "sk-x")
    assert _mode(agent) == 0o700


def test_replace_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    auth = AuthStorage(tmp_path)
    auth.set_api_key("anthropic", "one")
    inode_before = auth.path.stat().st_ino
    auth.set_api_key("openai", "two")

    # write_atomic renames a fresh file over the old one.
    assert auth.path.stat().st_ino != inode_before
    leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ("auth.json", "auth.json.lock")]
    assert leftovers == []
    assert set(json.loads(auth.path.read_text())) == {"anthropic", "openai"}
    assert _mode(auth.path) == 0o600


def test_write_keeps_changes_made_by_another_process(tmp_path: Path) -> None:
    first = AuthStorage(tmp_path)
    second = AuthStorage(tmp_path)
    first.set_api_key("anthropic", "a")
    second.set_api_key("openai", "b")  # second never saw "anthropic" in memory
    assert set(json.loads((tmp_path / "auth.json").read_text())) == {"anthropic", "openai"}


def test_other_entry_types_survive_a_rewrite(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text(json.dumps({"github-copilot": {"type": "oauth", "access": "t"}}))
    auth = AuthStorage(tmp_path)
    auth.set_api_key("openai", "k")
    data = json.loads((tmp_path / "auth.json").read_text())
    assert data["github-copilot"] == {"type": "oauth", "access": "t"}
    assert auth.has_api_key("github-copilot") is False


def test_remove(tmp_path: Path) -> None:
    auth = AuthStorage(tmp_path)
    auth.set_api_key("groq", "k")
    assert auth.remove("groq") is True
    assert auth.remove("groq") is False
    assert auth.get("groq") is None
    assert json.loads((tmp_path / "auth.json").read_text()) == {}


def test_broken_file_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    broken = '{"anthropic": {"type": "api_key", "key": "sk-secret"'
    (tmp_path / "auth.json").write_text(broken)
    auth = AuthStorage(tmp_path)

    assert len(auth.errors) == 1
    assert "auth.json" in auth.errors[0] and "not valid JSON" in auth.errors[0]
    assert "sk-secret" not in auth.errors[0]
    assert auth.get("anthropic") is None

    with pytest.raises(AuthStorageError):
        auth.set_api_key("openai", "new")
    with pytest.raises(AuthStorageError):
        auth.remove("anthropic")
    assert (tmp_path / "auth.json").read_text() == broken


def test_non_object_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text("[1, 2]")
    auth = AuthStorage(tmp_path)
    assert auth.errors and "JSON object" in auth.errors[0]


def test_repr_never_shows_a_key(tmp_path: Path) -> None:
    auth = AuthStorage(tmp_path)
    auth.set_api_key("anthropic", "sk-very-secret")
    assert "sk-very-secret" not in repr(auth)
    assert "sk-very-secret" not in str(auth)
    assert "anthropic" in repr(auth)


def test_resolve_value_literal_env_and_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_TEST_KEY_VAR", "from-env")
    assert resolve_value("plain-literal") == "plain-literal"
    assert resolve_value("MY_TEST_KEY_VAR") == "from-env"
    assert resolve_value("UNSET_VARIABLE_NAME_XYZ") == "UNSET_VARIABLE_NAME_XYZ"
    assert resolve_value("!echo from-command") == "from-command"
    assert resolve_value("!exit 3") is None
    assert resolve_value("!true") is None  # prints nothing
    assert resolve_value("") is None
    assert resolve_value(None) is None


def test_command_runs_each_time_it_is_needed(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    command = (
        f"!{sys.executable} -c \"import pathlib; p = pathlib.Path(r'{counter}'); "
        "n = int(p.read_text()) + 1 if p.exists() else 1; p.write_text(str(n)); print(f'key{n}')\""
    )
    auth = AuthStorage(tmp_path)
    auth.set_api_key("openai", command)
    assert counter.exists() is False  # storing does not run it
    assert auth.api_key("openai") == "key1"
    assert auth.api_key("openai") == "key2"
