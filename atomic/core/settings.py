"""Settings: `<agentDir>/settings.json` (global) deep-merged with `<cwd>/.atomic/settings.json` (project wins).

A broken file is reported in `errors` and ignored, never overwritten. Writes go to the global file only,
change only the keys asked for (re-read under a lock, so a concurrent writer's keys survive), and are
written by write-then-rename. Unknown keys are kept.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from atomic.core import jsonc
from atomic.core.atomic_io import file_lock, write_atomic

QueueMode = Literal["all", "one-at-a-time"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class CompactionSettings(_Section):
    enabled: bool = True
    reserve_tokens: int = Field(16384, alias="reserveTokens")
    compression_ratio: float = 0.5
    preserve_recent: int = 2


class ProviderRetrySettings(_Section):
    timeout_ms: int | None = Field(None, alias="timeoutMs")
    max_retry_delay_ms: int = Field(60000, alias="maxRetryDelayMs")


class RetrySettings(_Section):
    enabled: bool = True
    max_retries: int = Field(3, alias="maxRetries")
    base_delay_ms: int = Field(2000, alias="baseDelayMs")
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class ImageSettings(_Section):
    auto_resize: bool = Field(True, alias="autoResize")
    block_images: bool = Field(False, alias="blockImages")


class McpSettings(_Section):
    startup_timeout_ms: int = Field(30000, alias="startupTimeoutMs", gt=0)
    tool_timeout_ms: int = Field(120000, alias="toolTimeoutMs", gt=0)
    prompt_wait_ms: int = Field(10000, alias="promptWaitMs", ge=0)
    tool_search: Literal["auto", "always", "never"] = Field("auto", alias="toolSearch")


class Settings(_Section):
    default_provider: str | None = Field(None, alias="defaultProvider")
    default_model: str | None = Field(None, alias="defaultModel")
    default_thinking_level: str | None = Field(None, alias="defaultThinkingLevel")
    steering_mode: QueueMode = Field("one-at-a-time", alias="steeringMode")
    follow_up_mode: QueueMode = Field("one-at-a-time", alias="followUpMode")
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    theme: str = "dark"
    hide_thinking_block: bool = Field(False, alias="hideThinkingBlock")
    quiet_startup: bool = Field(False, alias="quietStartup")
    double_escape_action: Literal["tree", "fork", "none"] = Field("tree", alias="doubleEscapeAction")
    enabled_models: list[str] | None = Field(None, alias="enabledModels")
    shell_path: str | None = Field(None, alias="shellPath")
    shell_command_prefix: str | None = Field(None, alias="shellCommandPrefix")
    session_dir: str | None = Field(None, alias="sessionDir")
    editor_padding_x: int = Field(0, alias="editorPaddingX", ge=0, le=3)
    images: ImageSettings = Field(default_factory=ImageSettings)
    thinking_budgets: dict[str, int] | None = Field(None, alias="thinkingBudgets")
    bell_on_turn_end: bool = Field(True, alias="bellOnTurnEnd")
    animations: bool = True
    mcp: McpSettings = Field(default_factory=McpSettings)
    permission_mode: Literal["ask", "accept-edits", "yolo"] | None = Field(None, alias="permissionMode")


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _set_path(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    if value is None:
        node.pop(parts[-1], None)
    else:
        node[parts[-1]] = value


class SettingsManager:
    def __init__(self, agent_dir: Path, cwd: Path) -> None:
        self.global_path = agent_dir / "settings.json"
        self.project_path = cwd / ".atomic" / "settings.json"
        self.errors: list[str] = []
        self._global: dict[str, Any] = {}
        self._project: dict[str, Any] = {}
        self.settings = Settings()
        self.reload()

    def _read(self, path: Path) -> dict[str, Any]:
        if not path.exists():
            return {}
        try:
            data = jsonc.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.errors.append(f"Could not read settings file {path}: {exc}. It is ignored.")
            return {}
        if not isinstance(data, dict):
            self.errors.append(f"Settings file {path} must hold a JSON object. It is ignored.")
            return {}
        return data

    def reload(self) -> None:
        self.errors = []
        self._global = self._read(self.global_path)
        self._project = self._read(self.project_path)
        merged = deep_merge(self._global, self._project)
        try:
            self.settings = Settings.model_validate(merged)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            self.errors.append(f"Invalid settings value at {where}: {first['msg']}. Using defaults for it.")
            # Drop only the offending keys: validate each top-level key on its own.
            valid: dict[str, Any] = {}
            for key, value in merged.items():
                try:
                    Settings.model_validate({key: value})
                    valid[key] = value
                except ValidationError:
                    continue
            self.settings = Settings.model_validate(valid)

    def global_raw(self) -> dict[str, Any]:
        """The user's own settings file only (what a project's files cannot change, e.g. trust)."""
        return copy.deepcopy(self._global)

    def project_raw(self) -> dict[str, Any]:
        return copy.deepcopy(self._project)

    def raw(self) -> dict[str, Any]:
        return deep_merge(self._global, self._project)

    def update(self, changes: dict[str, Any]) -> None:
        """Write dotted keys (e.g. `compaction.enabled`) to the global file; None removes a key."""
        with file_lock(self.global_path):
            current: dict[str, Any] = {}
            if self.global_path.exists():
                try:
                    current = jsonc.loads(self.global_path.read_text(encoding="utf-8"))
                except (OSError, ValueError) as exc:
                    # Never overwrite a file the user may be editing by hand.
                    raise ValueError(f"Not saving settings: {self.global_path} is not valid JSON ({exc})") from exc
                if not isinstance(current, dict):
                    raise ValueError(f"Not saving settings: {self.global_path} is not a JSON object")
            for key, value in changes.items():
                _set_path(current, key, value)
            write_atomic(self.global_path, json.dumps(current, indent=2) + "\n")
        self.reload()
