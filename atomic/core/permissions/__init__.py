"""Who approves the model's tool calls: modes, rules, and the analysis behind them (see policy.py)."""

from atomic.core.permissions.policy import (
    EDIT_TOOLS,
    EXECUTE_TOOLS,
    MCP_PREFIX,
    PERMISSION_MODES,
    ApprovalAnswer,
    ApprovalRequest,
    Approver,
    Decision,
    PermissionMode,
    PermissionPolicy,
    ToolKind,
    command_prefix,
    describe,
    needs_approval,
    parse_mode,
    tool_kind,
)
from atomic.core.permissions.rules import ListedRule, RuleList

__all__ = [
    "EDIT_TOOLS",
    "ListedRule",
    "RuleList",
    "EXECUTE_TOOLS",
    "MCP_PREFIX",
    "PERMISSION_MODES",
    "ApprovalAnswer",
    "ApprovalRequest",
    "Approver",
    "Decision",
    "PermissionMode",
    "PermissionPolicy",
    "ToolKind",
    "command_prefix",
    "describe",
    "needs_approval",
    "parse_mode",
    "tool_kind",
]
