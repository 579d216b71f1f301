"""What a frontend reads from the engine: frozen, snake_case records.

They sit below the engine so that the components build them where the data lives (a component
returns its record; `Engine` hands it on) and `atomic.core.contract` re-exports them. The engine's
own objects (the session store, the model registry, the queues, the settings manager) stay behind
`Engine`; these records are copies taken when asked for. The RPC frontend alone turns them into
the protocol's camelCase JSON (atomic/rpc/wire.py); the TUI and ACP read the fields. The records
`get_state` needs are in contract/state.py; this module is imported inside the functions that
build its records, so that start-up does not define them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from atomic.core.model_types import Model

# Where a provider's key comes from ("stored": auth.json, "environment": an env var, "models_json",
# "runtime": --api-key); None when no key is configured.
AuthSource = Literal["stored", "environment", "models_json", "runtime"]


@dataclass(frozen=True)
class TokenTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass(frozen=True)
class ContextUsage:
    """How full the model's context window is: the last valid usage plus an estimate of what followed."""

    tokens: int | None  # None right after a compaction, until the next answer reports usage
    context_window: int
    percent: float | None  # tokens / context_window * 100, one decimal


@dataclass(frozen=True)
class SessionStats:
    """Counts over the current branch of the session file (RPC `get_session_stats`, TUI footer)."""

    session_id: str
    session_file: Path | None
    user_messages: int
    assistant_messages: int
    tool_calls: int
    tool_results: int
    total_messages: int  # messages in the context (after compaction), not on the branch
    tokens: TokenTotals
    cost: float  # dollars, rounded to 6 places
    context_usage: ContextUsage | None  # None when there is no model or it has no window


@dataclass(frozen=True)
class QueueSnapshot:
    """Messages waiting while the agent runs (what `clear_queue` removed, or what is queued now)."""

    steering: tuple[str, ...]
    follow_up: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.steering) + len(self.follow_up)


@dataclass(frozen=True)
class ModelCycle:
    """The result of `cycle_model` (None from the engine when there is nothing to cycle to)."""

    model: Model
    thinking_level: str
    is_scoped: bool  # True when cycling through the --models / enabledModels scope


@dataclass(frozen=True)
class ThinkingLevelChange:
    """The level in effect after `set_thinking_level` (clamped to what the model supports)."""

    level: str
    provider: str | None  # the current model's, None without a model
    model_id: str | None


@dataclass(frozen=True)
class AuthStatus:
    configured: bool
    source: str | None = None  # an AuthSource value when configured
    label: str | None = None  # the env var name when source is "environment"


@dataclass(frozen=True)
class ProviderAuth:
    """One provider as the login screen lists it."""

    provider: str
    status: AuthStatus
    env_var: str | None  # the variable that would also provide its key
    default_model_id: str | None  # the model a login switches to
    # "api-key", "oauth" (a subscription login: /login runs it), "cloud" or "none" (a local server)
    auth: str = "api-key"


@dataclass(frozen=True)
class LogoutResult:
    provider: str
    status: AuthStatus  # what still provides a key after the stored one is removed
    models: tuple[Model, ...]  # the models usable now
    scoped_models: tuple[Model, ...] | None  # the usable part of the scope, None without a scope


@dataclass(frozen=True)
class CommandInfo:
    """A command a user can type: an extension command, a prompt template, a skill or an MCP prompt."""

    name: str
    description: str | None
    source: Literal["extension", "prompt", "skill", "mcp"]
    path: str | None  # the file that defines it
    location: str | None = None  # "user" | "project" for templates and skills


@dataclass(frozen=True)
class SessionSummary:
    """One stored session as the picker lists it (read from the file's start only)."""

    path: Path
    id: str
    cwd: str
    created: str  # ISO timestamp from the header
    modified: float  # mtime, seconds since the epoch
    size: int  # bytes
    first_message: str
    name: str | None


@dataclass(frozen=True)
class ForkMessage:
    """A user message a fork can start before."""

    entry_id: str
    text: str


@dataclass(frozen=True)
class ForkResult:
    text: str  # the user message's text (the TUI puts it in the editor)
    cancelled: bool  # an extension cancelled the fork


@dataclass(frozen=True)
class CompactionOutcome:
    """A finished manual compaction."""

    summary: str  # the compacted text that replaces the older messages
    first_kept_entry_id: str | None
    tokens_before: int
    backup_path: str | None  # the session file's copy taken before compacting
    # The compactor's full result as the `compaction_end` event carries it (protocol JSON, shared with
    # that event, so RPC answers `compact` with it as is).
    result: dict[str, Any]


@dataclass(frozen=True)
class McpServerStatus:
    """One configured MCP server (the /mcp screen, RPC `get_mcp_servers`)."""

    name: str
    source: str  # which config file (or "acp") declared it
    transport: str  # "stdio" | "http" | "sse"
    target: str  # the command line or URL
    status: str  # "starting" | "connected" | "failed" | "disabled" | "untrusted" ...
    error: str | None
    tools: tuple[str, ...]
    server_name: str | None  # the name the server reports for itself
    log_path: str | None  # its stderr log (stdio servers)
    restarts: int
    deferred: bool  # tools offered only through the search tool
    # Times a remote server had forgotten the session and a call initialized it again.
    session_renewals: int = 0




@dataclass(frozen=True)
class TreeNode:
    """One entry of the session file in the tree of branches (/tree)."""

    # The stored entry as the session file holds it (docs/sessions.md: the file's own JSON format).
    entry: dict[str, Any]
    children: tuple[TreeNode, ...]
    label: str | None  # the user's label on this entry
    label_timestamp: str | None

    @property
    def id(self) -> str:
        return str(self.entry["id"])


@dataclass(frozen=True)
class SessionTree:
    roots: tuple[TreeNode, ...]
    leaf_id: str | None  # the current position


@dataclass(frozen=True)
class StoredTree:
    """The tree as an index over the stored lines, for a frontend that splices the file's own JSON
    (RPC `get_tree` of a 10,000-entry session must not parse and re-encode every entry)."""

    children: dict[str | None, list[str]]  # parent id (None: roots) -> child ids in file order
    lines: dict[str, str]  # entry id -> its stored JSON line
    labels: dict[str, tuple[str, str]]  # entry id -> (label, timestamp)
    leaf_id: str | None


# One message of the context as stored: its JSON text exactly as the session file holds it when
# known, else its dict in the file's format (a message recorded by this process). Plain values, not a
# record: RPC `get_messages` splices 50,000 of them, and an object per message tripled its time.
StoredMessage = str | dict[str, Any]
