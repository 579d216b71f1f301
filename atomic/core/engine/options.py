"""Everything a frontend can ask for when it opens an engine session (mostly CLI flags)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atomic.core.mcp.config import McpServerConfig


@dataclass
class SessionOptions:
    cwd: Path
    agent_dir: Path | None = None
    provider: str | None = None
    model: str | None = None
    thinking: str | None = None
    api_key: str | None = None
    scoped_models: list[str] | None = None
    # Sessions
    no_session: bool = False
    session_dir: str | None = None
    session: str | None = None  # path or id prefix to open
    continue_recent: bool = False
    fork: str | None = None  # path or id to copy into a new session
    name: str | None = None
    # Tools and resources
    tools: list[str] | None = None
    system_prompt: str | None = None
    append_system_prompt: list[str] = field(default_factory=list)
    no_context_files: bool = False
    no_extensions: bool = False
    extensions: list[str] = field(default_factory=list)
    no_skills: bool = False
    skills: list[str] = field(default_factory=list)
    no_prompt_templates: bool = False
    prompt_templates: list[str] = field(default_factory=list)
    extension_flags: dict[str, Any] = field(default_factory=dict)
    # Project trust for this run: True (--approve), False (--no-approve), None (setting / saved decision).
    approve: bool | None = None
    # MCP servers passed by the frontend (e.g. ACP `session/new`); they need no trust step.
    mcp_servers: list[McpServerConfig] = field(default_factory=list)
    # Approvals: the flag wins over the `permissionMode` setting, which wins over the frontend's
    # default (yolo everywhere except ACP, where the editor shows the question).
    permission_mode: str | None = None
    # `--sandbox`: the sandbox mode for this run, over the `sandbox.mode` setting.
    sandbox_mode: str | None = None
    default_permission_mode: str = "yolo"
    # An in-process scripted provider (tests, snapshots, demos); see atomic.core.providers.scripted.
    scripted: Any = None
