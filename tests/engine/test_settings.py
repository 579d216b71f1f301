"""Settings: global and project files deep-merged, unknown keys kept, broken files never overwritten."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from atomic.core.settings import ImageSettings, SettingsManager


def write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def test_project_wins_with_deep_merge(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write(agent / "settings.json", {"compaction": {"enabled": False, "reserveTokens": 1000}, "theme": "light"})
    write(cwd / ".atomic" / "settings.json", {"compaction": {"reserveTokens": 2000}, "steeringMode": "all"})
    settings = SettingsManager(agent, cwd, project_trusted=True).settings
    assert settings.compaction.enabled is False  # from global, untouched by the project's partial object
    assert settings.compaction.reserve_tokens == 2000  # project wins
    assert settings.theme == "light" and settings.steering_mode == "all"


def test_comments_trailing_commas_and_unknown_keys(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "settings.json", '{\n  // mine\n  "myPlugin": {"x": 1},\n  "quietStartup": true,\n}\n')
    manager = SettingsManager(agent, tmp_path)
    assert manager.settings.quiet_startup is True
    assert manager.settings.model_extra["myPlugin"] == {"x": 1}
    manager.update({"theme": "light"})
    saved = json.loads((agent / "settings.json").read_text())
    assert saved["myPlugin"] == {"x": 1} and saved["theme"] == "light"


def test_a_pi_file_with_images_auto_resize_loads_and_the_key_does_nothing(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "settings.json", {"images": {"autoResize": False, "blockImages": True}, "theme": "light"})
    manager = SettingsManager(agent, tmp_path)
    assert manager.errors == []
    assert manager.settings.images.block_images is True and manager.settings.theme == "light"
    assert "auto_resize" not in ImageSettings.model_fields  # not declared: nothing reads it
    assert manager.settings.images.model_extra == {"autoResize": False}  # kept, as every unknown key


def test_broken_file_is_reported_and_never_overwritten(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "settings.json", '{"theme": "light",')
    manager = SettingsManager(agent, tmp_path)
    assert manager.errors and "settings.json" in manager.errors[0]
    assert manager.settings.theme == "dark"
    with pytest.raises(ValueError, match="Not saving settings"):
        manager.update({"theme": "light"})
    assert (agent / "settings.json").read_text() == '{"theme": "light",'


def test_invalid_value_falls_back_for_that_key_only(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    write(agent / "settings.json", {"steeringMode": "sometimes", "theme": "light"})
    manager = SettingsManager(agent, tmp_path)
    assert manager.settings.steering_mode == "one-at-a-time"
    assert manager.settings.theme == "light"
    assert any("steeringMode" in e for e in manager.errors)


def test_update_writes_only_global_and_only_changed_keys(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write(agent / "settings.json", {"theme": "light"})
    write(cwd / ".atomic" / "settings.json", {"steeringMode": "all"})
    manager = SettingsManager(agent, cwd)
    manager.update({"compaction.enabled": False, "defaultModel": "m"})
    assert json.loads((agent / "settings.json").read_text()) == {
        "theme": "light",
        "compaction": {"enabled": False},
        "defaultModel": "m",
    }
    assert json.loads((cwd / ".atomic" / "settings.json").read_text()) == {"steeringMode": "all"}
    assert manager.settings.compaction.enabled is False
    manager.update({"defaultModel": None})
    assert "defaultModel" not in json.loads((agent / "settings.json").read_text())


def test_concurrent_writers_keep_each_others_keys(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    managers = [SettingsManager(agent, tmp_path) for _ in range(8)]

    def writer(index: int) -> None:
        for round_ in range(10):
            managers[index].update({f"key{index}": round_})

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    saved = json.loads((agent / "settings.json").read_text())
    assert {k: saved[k] for k in sorted(saved)} == {f"key{i}": 9 for i in range(8)}
    assert not [p for p in agent.iterdir() if p.name.endswith(".tmp")]


def test_untrusted_project_settings_are_not_merged(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    write(agent / "settings.json", {"theme": "light"})
    write(cwd / ".atomic" / "settings.json", {"theme": "dark", "shellPath": "/tmp/evil-shell"})
    manager = SettingsManager(agent, cwd)  # undecided: the project's file is not even read
    assert manager.settings.theme == "light" and manager.settings.shell_path is None
    assert manager.project_raw() == {}
    manager.set_project_trusted(True)
    assert manager.settings.theme == "dark" and manager.settings.shell_path == "/tmp/evil-shell"
    manager.set_project_trusted(False)
    assert manager.settings.theme == "light" and manager.settings.shell_path is None
