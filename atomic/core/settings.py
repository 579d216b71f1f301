"""Settings: `<agentDir>/settings.json` (global) deep-merged with `<cwd>/.atomic/settings.json` (project wins).

The project file is merged only when the project is trusted (atomic/core/trust.py): until the factory
has decided, and whenever the folder is not trusted, only the user's own file counts.

A broken file is reported in `errors` and ignored, never overwritten. Writes go to the global file only,
change only the keys asked for (re-read under a lock, so a concurrent writer's keys survive), and are
written by write-then-rename. Unknown keys are kept.
"""

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from atomic.core import jsonc
from atomic.core.atomic_io import file_lock, write_atomic

QueueMode = Literal["one-at-a-time", "all"]  # in the order /settings cycles through them
SettingKind = Literal["bool", "choice", "int", "float", "text"]


_KINDS: dict[str, SettingKind] = {kind: kind for kind in get_args(SettingKind)}


def _shown(
    label: str,
    kind: SettingKind,
    *,
    choices: list[str | int] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    step: float | None = None,
) -> dict[str, Any]:
    """Field metadata for a setting that /settings shows: its label, editor kind and range (json_schema_extra)."""
    extra: dict[str, Any] = {"label": label, "kind": kind}
    for name, value in (("choices", choices), ("minimum", minimum), ("maximum", maximum), ("step", step)):
        if value is not None:
            extra[name] = value
    return extra


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class CompactionSettings(_Section):
    enabled: bool = Field(
        default=True,
        description="Compact the context automatically when it nears the model's window",
        json_schema_extra=_shown("Auto-compact", "bool"),
    )
    reserve_tokens: int = Field(
        default=16384,
        alias="reserveTokens",
        description="Tokens kept free for the reply: compaction starts when the context passes window minus this",
        json_schema_extra=_shown("Compaction reserve tokens", "int", minimum=0, step=1024),
    )
    compression_ratio: float = Field(
        default=0.5,
        description="Share of the compacted region's lines to keep (0.05-0.95)",
        json_schema_extra=_shown("Compression ratio", "float", minimum=0.05, maximum=0.95, step=0.05),
    )
    preserve_recent: int = Field(
        default=2,
        description="Newest messages never compacted",
        json_schema_extra=_shown("Preserve recent messages", "int", minimum=0, maximum=1000),
    )


class ProviderRetrySettings(_Section):
    timeout_ms: int | None = Field(default=None, alias="timeoutMs")
    max_retry_delay_ms: int = Field(default=60000, alias="maxRetryDelayMs")


class RetrySettings(_Section):
    enabled: bool = Field(
        default=True,
        description="Retry transient provider errors (overloaded, rate limits) with backoff",
        json_schema_extra=_shown("Auto-retry", "bool"),
    )
    max_retries: int = Field(
        default=3,
        alias="maxRetries",
        description="How many times a transient provider error is retried",
        json_schema_extra=_shown("Max retries", "int", minimum=0, maximum=100),
    )
    base_delay_ms: int = Field(default=2000, alias="baseDelayMs")
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class ImageSettings(_Section):
    # pi's `autoResize` is not declared: images are sent as they are, and the key, kept as unknown, does nothing.
    block_images: bool = Field(
        default=False,
        alias="blockImages",
        description="Never send images to the model",
        json_schema_extra=_shown("Block images", "bool"),
    )


class McpSettings(_Section):
    startup_timeout_ms: int = Field(default=30000, alias="startupTimeoutMs", gt=0)
    tool_timeout_ms: int = Field(default=120000, alias="toolTimeoutMs", gt=0)
    prompt_wait_ms: int = Field(default=10000, alias="promptWaitMs", ge=0)
    tool_search: Literal["auto", "always", "never"] = Field(default="auto", alias="toolSearch")
    max_result_bytes: int = Field(default=50 * 1024, alias="maxResultBytes", gt=0)
    max_result_lines: int = Field(default=2000, alias="maxResultLines", gt=0)


class CheckpointSettings(_Section):
    enabled: bool = Field(
        default=True,
        description="Record the project's files before each prompt's first change, so it can be undone",
    )
    max_file_bytes: int = Field(
        default=10 * 1024 * 1024,
        alias="maxFileBytes",
        ge=0,
        description="Files bigger than this are left out of checkpoints (and listed as skipped)",
    )
    keep_days: int = Field(
        default=30,
        alias="keepDays",
        gt=0,
        description="Checkpoints older than this many days are pruned",
    )


class SubagentSettings(_Section):
    max_concurrent: int = Field(
        default=4,
        alias="maxConcurrent",
        ge=1,
        description="Subagents (task tool calls) that run at the same time; more wait for a free slot",
        json_schema_extra=_shown("Concurrent subagents", "int", minimum=1, maximum=16),
    )


class PermissionSettings(_Section):
    # Rules in Claude Code's form (docs/security.md, "Permission rules"); read by atomic/core/permissions.
    allow: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    always_save_to: Literal["project", "user"] = Field(default="project", alias="alwaysSaveTo")


class AcpSettings(_Section):
    # Default off: until editors show embedded terminals well, streamed output is what they show.
    client_terminal: bool = Field(default=False, alias="clientTerminal")


class ShellEnvSettings(_Section):
    # Variables the model's commands receive although their names look secret (docs/security.md).
    pass_names: list[str] = Field(default_factory=list, alias="pass")
    pass_secrets: bool = Field(default=False, alias="passSecrets")


SandboxMode = Literal["workspace-write", "read-only", "off"]


class SandboxSettings(_Section):
    mode: SandboxMode = Field(
        default="workspace-write",
        description="Where the model's commands may write: the project, temp and writableRoots; only temp; or anywhere",
        json_schema_extra=_shown("Sandbox", "choice"),
    )
    network: bool = Field(
        default=True,
        description="Whether the model's sandboxed commands may use the network (off: only their own loopback)",
        json_schema_extra=_shown("Sandbox network", "bool"),
    )
    writable_roots: list[str] = Field(default_factory=lambda: ["~/.cache"], alias="writableRoots")
    escalation: Literal["ask", "never"] = Field(default="ask")


class Settings(_Section):
    default_provider: str | None = Field(default=None, alias="defaultProvider")
    default_model: str | None = Field(default=None, alias="defaultModel")
    default_thinking_level: str | None = Field(
        default=None,
        alias="defaultThinkingLevel",
        description="Reasoning effort for the current model (saved as the default)",
        # The choices depend on the model: the frontend asks the engine for them.
        json_schema_extra=_shown("Thinking level", "choice"),
    )
    steering_mode: QueueMode = Field(
        default="one-at-a-time",
        alias="steeringMode",
        description="Deliver queued steering messages one at a time or all together",
        json_schema_extra=_shown("Steering mode", "choice"),
    )
    follow_up_mode: QueueMode = Field(
        default="one-at-a-time",
        alias="followUpMode",
        description="Deliver queued follow-up messages one at a time or all together",
        json_schema_extra=_shown("Follow-up mode", "choice"),
    )
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    # Any name is kept (a pi theme name, say); /settings offers the two Atomic has.
    theme: str = Field(
        default="dark",
        description="Colour theme of the terminal UI",
        json_schema_extra=_shown("Theme", "choice", choices=["dark", "light"]),
    )
    hide_thinking_block: bool = Field(
        default=False,
        alias="hideThinkingBlock",
        description="Hide the model's thinking blocks in the conversation (Ctrl+T toggles)",
        json_schema_extra=_shown("Hide thinking", "bool"),
    )
    quiet_startup: bool = Field(
        default=False,
        alias="quietStartup",
        description="Skip the startup header listing context files, templates, skills and extensions",
        json_schema_extra=_shown("Quiet startup", "bool"),
    )
    double_escape_action: Literal["rewind", "tree", "fork", "none"] = Field(
        default="rewind",
        alias="doubleEscapeAction",
        description="What pressing Esc twice on an empty editor opens",
        json_schema_extra=_shown("Double-escape action", "choice"),
    )
    enabled_models: list[str] | None = Field(default=None, alias="enabledModels")
    shell_path: str | None = Field(
        default=None,
        alias="shellPath",
        description="Shell used by the bash tool and !commands (empty = default)",
        json_schema_extra=_shown("Shell path", "text"),
    )
    shell_command_prefix: str | None = Field(
        default=None,
        alias="shellCommandPrefix",
        description="Text prepended to every shell command, e.g. `source ~/.profile &&` (empty = none)",
        json_schema_extra=_shown("Shell command prefix", "text"),
    )
    session_dir: str | None = Field(default=None, alias="sessionDir")
    editor_padding_x: int = Field(
        default=0,
        alias="editorPaddingX",
        ge=0,
        le=3,
        description="Horizontal padding inside the editor (0-3)",
        json_schema_extra=_shown("Editor padding", "choice", choices=[0, 1, 2, 3]),
    )
    images: ImageSettings = Field(default_factory=ImageSettings)
    thinking_budgets: dict[str, int] | None = Field(default=None, alias="thinkingBudgets")
    bell_on_turn_end: bool = Field(
        default=True,
        alias="bellOnTurnEnd",
        description="Ring the terminal bell when a long turn finishes",
        json_schema_extra=_shown("Bell on turn end", "bool"),
    )
    notify_on_turn_end: bool = Field(
        default=False,
        alias="notifyOnTurnEnd",
        description="Send a desktop notification when a long turn finishes or an approval is waiting",
        json_schema_extra=_shown("Desktop notifications", "bool"),
    )
    web_search: bool = Field(
        default=False,
        alias="webSearch",
        description="Let the model search the web with its provider's own search tool (Anthropic, OpenAI Responses)",
        json_schema_extra=_shown("Web search", "bool"),
    )
    mcp: McpSettings = Field(default_factory=McpSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    acp: AcpSettings = Field(default_factory=AcpSettings)
    subagents: SubagentSettings = Field(default_factory=SubagentSettings)
    permission_mode: Literal["ask", "accept-edits", "yolo", "plan"] | None = Field(default=None, alias="permissionMode")
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    shell_env: ShellEnvSettings = Field(default_factory=ShellEnvSettings, alias="shellEnv")


@dataclass(frozen=True)
class SettingMeta:
    """What a frontend shows for one setting, read from the field's declaration above."""

    key: str  # the dotted settings.json key, e.g. `compaction.reserveTokens`
    label: str
    description: str
    kind: SettingKind
    choices: tuple[str | int, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    step: float = 1


def setting_fields(model: type[BaseModel] = Settings, prefix: str = "") -> Iterator[tuple[str, FieldInfo]]:
    """Every leaf setting as (dotted settings.json key, its pydantic field), sections walked in declaration order."""
    for name, info in model.model_fields.items():
        key = f"{prefix}{info.alias or name}"
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, _Section):
            yield from setting_fields(annotation, f"{key}.")
        else:
            yield key, info


def setting_meta(key: str) -> SettingMeta:
    """The label, description, kind and range of the setting at dotted `key` (KeyError if it is not shown)."""
    info = dict(setting_fields())[key]
    extra = info.json_schema_extra
    if not isinstance(extra, dict) or "label" not in extra:
        raise KeyError(f"{key} has no /settings metadata")
    kind = _KINDS[str(extra["kind"])]
    declared = extra.get("choices")
    if isinstance(declared, list):
        choices = tuple(c for c in declared if isinstance(c, (str, int)))
    elif kind == "choice":
        choices = tuple(arg for arg in get_args(info.annotation) if isinstance(arg, (str, int)))
    else:
        choices = ()
    return SettingMeta(
        key=key,
        label=str(extra["label"]),
        description=info.description or "",
        kind=kind,
        choices=choices,
        minimum=_number(extra.get("minimum")),
        maximum=_number(extra.get("maximum")),
        step=_number(extra.get("step")) or 1,
    )


def _number(value: object) -> float | None:
    return value if isinstance(value, (int, float)) else None


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
    def __init__(self, agent_dir: Path, cwd: Path, *, project_trusted: bool = False) -> None:
        self.global_path = agent_dir / "settings.json"
        self.project_path = cwd / ".atomic" / "settings.json"
        self.project_trusted = project_trusted
        self.errors: list[str] = []
        self._global: dict[str, Any] = {}
        self._project: dict[str, Any] = {}
        self.settings: Settings  # set by reload, which validates the files once
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
        # An untrusted project's file is not even read: its errors are not the user's concern.
        self._project = self._read(self.project_path) if self.project_trusted else {}
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

    def set_project_trusted(self, trusted: bool) -> None:
        """Merge (or stop merging) the project's file after a trust decision."""
        if trusted != self.project_trusted:
            self.project_trusted = trusted
            self.reload()

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
