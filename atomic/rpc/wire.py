"""The contract's records as the RPC protocol's camelCase JSON.

This is the only place records become protocol dicts (docs/rpc.md shows each shape). A record
whose wire form is its fields, in order, under their camelCase names goes through `record_json`
(the same alias rule as core/wire.py's models); the others, whose protocol form drops or adds
fields, have a function of their own. Key order is part of the wire layout
(tests/rpc/test_wire_layout.py).
"""

from __future__ import annotations

from dataclasses import is_dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic.alias_generators import to_camel

from atomic.core.contract import Model
from atomic.core.messages import BashExecutionMessage
from atomic.rpc.wire_json import JsonPieces, dumps, joined_in_chunks

if TYPE_CHECKING:
    from atomic.core.contract import (
        AuthStatus,
        CheckpointDiff,
        CheckpointInfo,
        CommandInfo,
        ContextUsage,
        ForkMessage,
        ForkResult,
        LogoutResult,
        McpServerStatus,
        ModelCycle,
        QueueSnapshot,
        RestoreResult,
        SessionState,
        SessionStats,
        StoredMessage,
        StoredTree,
        ThinkingLevelChange,
        TrustStatus,
    )


@lru_cache(maxsize=256)
def _camel(name: str) -> str:
    return to_camel(name)


def _wire_value(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_wire()
    if is_dataclass(value) and not isinstance(value, type):
        return record_json(value)
    if isinstance(value, (tuple, list)):
        return [_wire_value(item) for item in value]
    if isinstance(value, Path):
        return str(value)
    return value


def record_json(record: Any) -> dict[str, Any]:
    """A frozen record as the protocol spells it: every field, in declaration order, under its
    camelCase name (None kept); nested records and models in their wire form, tuples as lists,
    paths as strings."""
    return {_camel(name): _wire_value(value) for name, value in vars(record).items()}


def state_json(state: SessionState, trust: TrustStatus | None) -> dict[str, Any]:
    """`get_state` data (`projectTrust` is an Atomic extension, docs/rpc.md)."""
    data: dict[str, Any] = {
        "model": state.model.to_wire() if state.model else None,
        "thinkingLevel": state.thinking_level,
        "isStreaming": state.is_streaming,
        "isCompacting": state.is_compacting,
        "steeringMode": state.steering_mode,
        "followUpMode": state.follow_up_mode,
        "sessionId": state.session_id,
        "autoCompactionEnabled": state.auto_compaction_enabled,
        "messageCount": state.message_count,
        "pendingMessageCount": state.pending_message_count,
        "permissionMode": state.permission_mode,
        "todos": [item.to_dict() for item in state.todos],
    }
    if state.session_file is not None:
        data["sessionFile"] = str(state.session_file)
    if state.session_name:
        data["sessionName"] = state.session_name
    if state.model_fallback is not None:
        data["modelFallbackMessage"] = state.model_fallback.message
        data["modelFallbackReason"] = state.model_fallback.reason
    if trust is not None:
        data["projectTrust"] = trust_json(trust)
    recovery = state.session_recovery
    if recovery is not None:
        data["sessionRecovery"] = record_json(recovery)
    if state.sandbox is not None:
        sandbox = state.sandbox
        data["sandbox"] = {"mode": sandbox.mode, "network": sandbox.network, "available": sandbox.available}
    return data


def context_usage_json(usage: ContextUsage) -> dict[str, Any]:
    return record_json(usage)


def stats_json(stats: SessionStats) -> dict[str, Any]:
    """`get_session_stats` data."""
    tokens = stats.tokens
    data: dict[str, Any] = {
        "sessionId": stats.session_id,
        "userMessages": stats.user_messages,
        "assistantMessages": stats.assistant_messages,
        "toolCalls": stats.tool_calls,
        "toolResults": stats.tool_results,
        "totalMessages": stats.total_messages,
        "tokens": {
            "input": tokens.input,
            "output": tokens.output,
            "cacheRead": tokens.cache_read,
            "cacheWrite": tokens.cache_write,
            "total": tokens.total,
        },
        "cost": stats.cost,
    }
    if stats.session_file is not None:
        data["sessionFile"] = str(stats.session_file)
    if stats.context_usage is not None:
        data["contextUsage"] = context_usage_json(stats.context_usage)
    return data


def queue_json(queue: QueueSnapshot) -> dict[str, Any]:
    """`clear_queue` data: what was removed."""
    return record_json(queue)


def model_cycle_json(cycle: ModelCycle | None) -> dict[str, Any] | None:
    if cycle is None:
        return None
    return record_json(cycle)


def thinking_level_json(change: ThinkingLevelChange) -> dict[str, Any]:
    data: dict[str, Any] = {"level": change.level}
    if change.provider is not None:
        data["provider"] = change.provider
        data["modelId"] = change.model_id
    return data


def auth_status_json(status: AuthStatus) -> dict[str, Any]:
    if not status.configured:
        return {"configured": False}
    data: dict[str, Any] = {"configured": True, "source": status.source}
    if status.label:
        data["label"] = status.label
    return data


def logout_json(result: LogoutResult) -> dict[str, Any]:
    data: dict[str, Any] = {
        "provider": result.provider,
        "authStatus": auth_status_json(result.status),
        "models": [m.to_wire() for m in result.models],
    }
    if result.scoped_models is not None:
        data["scopedModels"] = [m.to_wire() for m in result.scoped_models]
    return data


def command_json(command: CommandInfo) -> dict[str, Any]:
    """One `get_commands` entry. Extension commands omit an empty description and have no location."""
    extension = command.source == "extension"
    data: dict[str, Any] = {"name": command.name}
    if command.description or not extension:
        data["description"] = command.description
    data["source"] = command.source
    if not extension:
        data["location"] = command.location
    data["path"] = command.path
    return data


def fork_messages_json(messages: list[ForkMessage]) -> dict[str, Any]:
    return {"messages": [record_json(m) for m in messages]}


def fork_json(result: ForkResult, restored: RestoreResult | None) -> dict[str, Any]:
    """`fork` data, with what was put back when the files were restored too."""
    data: dict[str, Any] = {"text": result.text, "cancelled": result.cancelled}
    if restored is not None:
        data["restoredFiles"] = restore_json(restored)
    return data


def navigate_json(editor_text: str | None, restored: RestoreResult | None) -> dict[str, Any]:
    """`navigate_tree` data: the user message's text comes back for editing when the target was one,
    and what was put back when the files were restored too."""
    data: dict[str, Any] = {"cancelled": False}
    if editor_text is not None:
        data["editorText"] = editor_text
    if restored is not None:
        data["restoredFiles"] = restore_json(restored)
    return data


def bash_json(message: BashExecutionMessage) -> dict[str, Any]:
    """`bash` data: the result of a user's shell command."""
    data: dict[str, Any] = {
        "output": message.output,
        "exitCode": message.exit_code,
        "cancelled": message.cancelled,
        "truncated": message.truncated,
    }
    if message.truncated:
        data["fullOutputPath"] = message.full_output_path
    return data


def mcp_server_json(server: McpServerStatus) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": server.name,
        "source": server.source,
        "transport": server.transport,
        "target": server.target,
        "status": server.status,
        "tools": list(server.tools),
        "restarts": server.restarts,
        "deferred": server.deferred,
    }
    if server.session_renewals:
        data["sessionRenewals"] = server.session_renewals
    if server.error:
        data["error"] = server.error
    if server.server_name:
        data["serverName"] = server.server_name
    if server.log_path:
        data["logPath"] = server.log_path
    return data


def trust_json(trust: TrustStatus) -> dict[str, Any]:
    """`projectTrust`: the decision, and (when the record carries it) what was not loaded."""
    data: dict[str, Any] = {"trusted": trust.trusted, "source": trust.source, "cwd": str(trust.cwd)}
    if trust.decided_by is not None:
        data["decidedBy"] = str(trust.decided_by)
    if trust.skipped is not None:
        data["skipped"] = [{"kind": s.kind, "items": list(s.items)} for s in trust.skipped]
        if trust.how_to_trust is not None:
            data["howToTrust"] = trust.how_to_trust
    return data


def mcp_servers_json(servers: list[McpServerStatus], trust: TrustStatus | None) -> dict[str, Any]:
    """`get_mcp_servers` data (an Atomic extension of the protocol)."""
    data: dict[str, Any] = {"servers": [mcp_server_json(s) for s in servers]}
    if trust is not None:
        data["projectTrust"] = trust_json(trust)
    return data


def entries_json(lines: list[str], leaf_id: str | None) -> JsonPieces:
    """`get_entries` data from the stored lines: no parsing, no re-encoding, O(entries returned)."""
    return JsonPieces(['{"entries":[', *joined_in_chunks(lines), f'],"leafId":{dumps(leaf_id)}}}'])


# A closed entry without a label, and how many pieces of text make one chunk of a `get_tree` answer.
_CLOSE = ("emit", "]}")
_TREE_CHUNK = 4096


def tree_json(tree: StoredTree) -> JsonPieces:
    """`get_tree` data, `{"tree":[{"entry","children","label"?,"labelTimestamp"?}],"leafId"}`.

    Built from the flat children index with an explicit stack, so a branch of any depth works,
    and each entry is its stored line, spliced in as is (never copied into a piece of its own).
    """
    kids = tree.children
    labels = tree.labels
    lines = tree.lines
    chunks: list[str] = []
    out: list[str] = ['{"tree":[']
    # Work items: an entry id to open (with the separator before it), or text to emit.
    stack: list[tuple[str, str]] = [("emit", "]")]
    roots = kids.get(None, [])
    for index in range(len(roots) - 1, -1, -1):
        stack.append(("open", roots[index]))
        if index:
            stack.append(("emit", ","))
    while stack:
        kind, value = stack.pop()
        if kind == "emit":
            out.append(value)
            continue
        out += ('{"entry":', lines[value], ',"children":[')
        if value in labels:
            label, stamp = labels[value]
            stack.append(("emit", f'],"label":{dumps(label)},"labelTimestamp":{dumps(stamp)}}}'))
        else:
            stack.append(_CLOSE)
        children = kids.get(value, [])
        for index in range(len(children) - 1, -1, -1):
            stack.append(("open", children[index]))
            if index:
                stack.append(("emit", ","))
        if len(out) >= _TREE_CHUNK:
            chunks.append("".join(out))
            out.clear()
    out.append(f',"leafId":{dumps(tree.leaf_id)}}}')
    chunks.append("".join(out))
    return JsonPieces(chunks)


def messages_json(messages: list[StoredMessage]) -> JsonPieces:
    """`get_messages` data: each stored message's own text from the file when known, else its dict.

    Left in chunks: the server writes a 50,000-message answer a chunk at a time.
    """
    return JsonPieces(['{"messages":[', *joined_in_chunks(messages), "]}"])


def checkpoints_json(checkpoints: list[CheckpointInfo]) -> dict[str, Any]:
    """`get_checkpoints` data (Atomic's extension, docs/rpc.md)."""
    return {
        "checkpoints": [
            {
                "checkpointId": c.checkpoint_id,
                "entryId": c.entry_id,
                "kind": c.kind,
                "timestamp": c.timestamp,
                "text": c.text,
                "files": c.files,
            }
            for c in checkpoints
        ]
    }


def checkpoint_diff_json(diff: CheckpointDiff) -> dict[str, Any]:
    return {"files": [{"path": f.path, "status": f.status} for f in diff.files], "diff": diff.diff}


def restore_json(result: RestoreResult) -> dict[str, Any]:
    """`restore_checkpoint` data, and `restoredFiles` of navigate_tree and fork."""
    return {
        "restored": list(result.restored),
        "deleted": list(result.deleted),
        "skipped": [{"path": s.path, "reason": s.reason} for s in result.skipped],
        "undoCheckpointId": result.undo_checkpoint_id,
    }
