"""The engine contract: the only part of `atomic.core` a frontend (TUI, RPC, ACP) imports.

- `Engine` (engine.py): one open session; commands as typed methods, one docstring each.
- `open_engine(options)`: opens one (the factory behind it stays private to the engine).
- records.py: frozen snake_case dataclasses for everything a frontend reads. Only atomic/rpc turns
  them into the protocol's camelCase JSON.
- The typed events (atomic.core.events, atomic.core.extensions.events) and messages
  (atomic.core.messages) are part of the contract: a frontend may import those modules directly.
  Their `to_wire()` is the protocol form, which RPC streams as is.

Also part of the contract, because they already are frozen or typed value objects a frontend reads:
`Model` (model_types), `Settings` (settings; read it, change it through `Engine.save_settings`),
`ProjectTrust` and `ProjectOffer` (trust, project_offer), `UiAnswer` (an answer to an extension
dialog) and the permission vocabulary (`ApprovalRequest`, `Decision`, `PERMISSION_MODES`).

Justified exceptions, imported from `atomic.core` by frontends directly: none yet besides the
event and message modules above.
"""

from __future__ import annotations

from atomic.core.contract.engine import (
    BashChunk,
    Engine,
    StreamingBehavior,
    TrustChoice,
    list_session_summaries,
    open_engine,
)
from atomic.core.contract.records import (
    AuthStatus,
    CommandInfo,
    CompactionOutcome,
    ContextUsage,
    ForkMessage,
    ForkResult,
    LogoutResult,
    McpServerStatus,
    ModelCycle,
    ModelFallback,
    ProviderAuth,
    QueueSnapshot,
    SessionState,
    SessionStats,
    SessionSummary,
    SessionTree,
    SkippedResources,
    StoredMessage,
    StoredTree,
    ThinkingLevelChange,
    TokenTotals,
    TreeNode,
    TrustStatus,
)
from atomic.core.engine.compaction_runner import CompactionFailed
from atomic.core.engine.factory import StartupError
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import PromptRejected
from atomic.core.extensions.ui import UiAnswer, UiAnswerError
from atomic.core.model_types import Model
from atomic.core.permissions import PERMISSION_MODES, ApprovalRequest, Approver, Decision, PermissionMode
from atomic.core.project_offer import ProjectOffer
from atomic.core.settings import Settings
from atomic.core.trust import HOW_TO_TRUST, ProjectTrust

__all__ = [
    "HOW_TO_TRUST",
    "PERMISSION_MODES",
    "ApprovalRequest",
    "Approver",
    "AuthStatus",
    "BashChunk",
    "CommandInfo",
    "CompactionFailed",
    "CompactionOutcome",
    "ContextUsage",
    "Decision",
    "Engine",
    "ForkMessage",
    "ForkResult",
    "LogoutResult",
    "McpServerStatus",
    "Model",
    "ModelCycle",
    "ModelFallback",
    "PermissionMode",
    "ProjectOffer",
    "ProjectTrust",
    "PromptRejected",
    "ProviderAuth",
    "QueueSnapshot",
    "SessionOptions",
    "SessionState",
    "SessionStats",
    "SessionSummary",
    "SessionTree",
    "Settings",
    "SkippedResources",
    "StartupError",
    "StoredMessage",
    "StoredTree",
    "StreamingBehavior",
    "ThinkingLevelChange",
    "TokenTotals",
    "TreeNode",
    "TrustChoice",
    "TrustStatus",
    "UiAnswer",
    "UiAnswerError",
    "list_session_summaries",
    "open_engine",
]
