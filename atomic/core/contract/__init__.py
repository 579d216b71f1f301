"""The engine contract: the only part of `atomic.core` a frontend (TUI, RPC, ACP) imports.

- `Engine` (engine.py): one open session; a flat core of typed methods (one docstring each) and
  five views over one component each (`models`, `sessions`, `trust`, `mcp`, `extension_ui`, in
  the `*_view.py` modules).
- `open_engine(options)`: opens one (the factory behind it stays private to the engine).
- sessions.py: what a frontend asks before an engine is open (stored sessions, usable models).
- records.py: frozen snake_case dataclasses for everything a frontend reads. Only atomic/rpc turns
  them into the protocol's camelCase JSON. The checkpoint records (and `CheckpointError`) are
  defined beside their component, atomic/core/checkpoints/records.py, and handed out here.
- The typed events (atomic.core.events, atomic.core.extensions.events) and messages
  (atomic.core.messages) are part of the contract: a frontend may import those modules directly.
  Their `to_wire()` is the protocol form, which RPC streams as is.

Also part of the contract, because they already are frozen or typed value objects a frontend reads:
`Model` (model_types), `Settings` (settings; read it, change it through `Engine.save_settings`),
`TrustDecision` and `ProjectOffer` (trust, project_offer), `UiAnswer` and `check_answer` (an answer
to an extension dialog and its check), the permission vocabulary (`ApprovalRequest`, `Decision`,
`PERMISSION_MODES`, `needs_approval`, `ApprovalAnswer`), `preview_change` (what a write or edit call
would do, for an approval card), the editor-files vocabulary ACP implements (`EditorFiles`,
`FileChange`, `ToolError`, and `EditorTerminal` / `TerminalRun`
for its terminals), `trust_change_message` and `parse_acp_servers` (ACP's MCP server list for
`SessionOptions.mcp_servers`).

Justified exceptions, imported from `atomic.core` by frontends directly (besides the event and
message modules above): `atomic.core.atomic_io.encode_json_text`, the byte encoding RPC shares with
the session file writer. tests/contract/test_frontends_use_the_contract.py keeps this list honest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from atomic.core.contract.engine import BashChunk, Engine, StreamingBehavior, TrustChoice, open_engine
from atomic.core.contract.state import (
    ModelFallback,
    SessionRecovery,
    SessionState,
    SkippedResources,
    TrustStatus,
)
from atomic.core.engine.errors import CompactionFailed, PromptRejected, StartupError
from atomic.core.engine.options import SessionOptions
from atomic.core.extensions.events import ExtensionUiRequest
from atomic.core.extensions.ui import UiAnswer, UiAnswerError, check_answer
from atomic.core.frontend_commands import COMPACT, FRONTEND_COMMANDS, NAME, FrontendCommand
from atomic.core.model_types import Model
from atomic.core.permissions import (
    PERMISSION_MODES,
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    ListedRule,
    PermissionMode,
    RuleList,
    needs_approval,
)
from atomic.core.sandbox.control import SandboxStatus
from atomic.core.settings import Settings
from atomic.core.tools.base import EditorFiles, EditorTerminal, FileChange, TerminalRun, ToolError
from atomic.core.tools.change_preview import ChangePreview, preview_change
from atomic.core.trust import HOW_TO_TRUST, TrustDecision, trust_change_message

if TYPE_CHECKING:
    from atomic.core.checkpoints.records import (
        ChangedFile,
        CheckpointDiff,
        CheckpointError,
        CheckpointInfo,
        RestoreResult,
        RewindPoint,
        SkippedFile,
    )
    from atomic.core.contract.logins import SubscriptionLogin, subscription_logins
    from atomic.core.contract.sessions import (
        find_session_file,
        has_usable_model,
        list_session_summaries,
        session_folder,
    )
    from atomic.core.mcp.acp_servers import parse_acp_servers
    from atomic.core.oauth.base import LoginCancelled, LoginError, LoginPrompts
    from atomic.core.project_offer import ProjectOffer
    from atomic.core.records import (
        AuthStatus,
        CommandInfo,
        CompactionOutcome,
        ContextUsage,
        ForkMessage,
        ForkResult,
        LogoutResult,
        McpServerStatus,
        ModelCycle,
        ProviderAuth,
        QueueSnapshot,
        SessionStats,
        SessionSummary,
        SessionTree,
        StoredMessage,
        StoredTree,
        ThinkingLevelChange,
        TokenTotals,
        TreeNode,
    )
    from atomic.core.tools.todo import TodoItem
    from atomic.core.web_sources import WebSource, web_sources

# Loaded on first use (PEP 562), not at start-up: the RPC server's first answer needs none of them,
# and defining the records alone took about 5% of the time from start to that answer.
_LAZY_MODULES = {
    "atomic.core.checkpoints.records": (
        "ChangedFile CheckpointDiff CheckpointError CheckpointInfo RestoreResult RewindPoint SkippedFile"
    ),
    "atomic.core.records": (
        "AuthStatus CommandInfo CompactionOutcome ContextUsage ForkMessage ForkResult LogoutResult McpServerStatus "
        "ModelCycle ProviderAuth QueueSnapshot SessionStats SessionSummary SessionTree StoredMessage StoredTree "
        "ThinkingLevelChange TokenTotals TreeNode"
    ),
    "atomic.core.contract.sessions": "find_session_file has_usable_model list_session_summaries session_folder",
    "atomic.core.mcp.acp_servers": "parse_acp_servers",
    "atomic.core.project_offer": "ProjectOffer",
    "atomic.core.tools.todo": "TodoItem",
    "atomic.core.web_sources": "WebSource web_sources",
    "atomic.core.oauth.base": "LoginCancelled LoginError LoginPrompts",
    "atomic.core.contract.logins": "SubscriptionLogin subscription_logins",
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names.split()}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = vars(importlib.import_module(module))[name]
    globals()[name] = value
    return value


# The eager imports above and every lazy name (tests/contract/test_contract_loads_lazily.py keeps
# this list, `_LAZY_MODULES` and the TYPE_CHECKING imports in step).
__all__ = [
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approver",
    "AuthStatus",
    "BashChunk",
    "COMPACT",
    "ChangePreview",
    "ChangedFile",
    "CheckpointDiff",
    "CheckpointError",
    "CheckpointInfo",
    "CommandInfo",
    "CompactionFailed",
    "CompactionOutcome",
    "ContextUsage",
    "Decision",
    "EditorFiles",
    "EditorTerminal",
    "Engine",
    "ExtensionUiRequest",
    "FRONTEND_COMMANDS",
    "FileChange",
    "ForkMessage",
    "ForkResult",
    "FrontendCommand",
    "HOW_TO_TRUST",
    "ListedRule",
    "LoginCancelled",
    "LoginError",
    "LoginPrompts",
    "LogoutResult",
    "McpServerStatus",
    "Model",
    "ModelCycle",
    "ModelFallback",
    "NAME",
    "PERMISSION_MODES",
    "PermissionMode",
    "ProjectOffer",
    "TrustDecision",
    "PromptRejected",
    "ProviderAuth",
    "QueueSnapshot",
    "RestoreResult",
    "RewindPoint",
    "RuleList",
    "SandboxStatus",
    "SessionOptions",
    "SessionRecovery",
    "SessionState",
    "SessionStats",
    "SessionSummary",
    "SessionTree",
    "Settings",
    "SkippedFile",
    "SkippedResources",
    "StartupError",
    "StoredMessage",
    "StoredTree",
    "StreamingBehavior",
    "SubscriptionLogin",
    "TerminalRun",
    "ThinkingLevelChange",
    "TodoItem",
    "TokenTotals",
    "ToolError",
    "TreeNode",
    "TrustChoice",
    "TrustStatus",
    "UiAnswer",
    "UiAnswerError",
    "WebSource",
    "check_answer",
    "find_session_file",
    "has_usable_model",
    "list_session_summaries",
    "needs_approval",
    "open_engine",
    "parse_acp_servers",
    "preview_change",
    "session_folder",
    "subscription_logins",
    "trust_change_message",
    "web_sources",
]
