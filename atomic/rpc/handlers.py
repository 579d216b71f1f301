"""One function per RPC command: a typed command -> `Engine` calls -> the response data.

Each handler declares its command with `@handles(p.SomeCommand)`; the handler table and the command
model table are both built from those declarations, so neither can drift from the other
(tests/rpc/test_command_declarations.py). No agent logic lives here, and records become the
protocol's camelCase JSON only through atomic/rpc/wire.py.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

from atomic.core.contract import Engine
from atomic.core.events import BashExecutionUpdate
from atomic.rpc import protocol as p
from atomic.rpc import wire

C = TypeVar("C", bound=p.Command)
Handler = Callable[[Engine, Any, "HandlerContext"], Awaitable[Any]]

# Filled by @handles, in declaration order (which is the order docs/rpc.md lists the commands in).
HANDLERS: dict[str, Handler] = {}
MODEL_BY_TYPE: dict[str, type[p.Command]] = {}


def handles(model: type[C]) -> Callable[[Callable[[Engine, C, HandlerContext], Awaitable[Any]]], Handler]:
    """Declare the handler of `model`'s command (each command exactly once)."""
    kind = p.command_type(model)

    def register(handler: Callable[[Engine, C, HandlerContext], Awaitable[Any]]) -> Handler:
        if kind in HANDLERS:
            raise ValueError(f"RPC command {kind} is declared twice")
        HANDLERS[kind] = handler
        MODEL_BY_TYPE[kind] = model
        return handler

    return register


class HandlerContext:
    """What a handler may need from the server besides the engine: event output for bash deltas."""

    def __init__(self, write_event: Callable[[dict[str, Any]], None]) -> None:
        self.write_event = write_event


class NoData:
    """Marker: the response carries no `data` field."""


NO_DATA = NoData()


@handles(p.Prompt)
async def prompt(e: Engine, c: p.Prompt, _x: HandlerContext) -> Any:
    await e.prompt(c.message, c.images, c.streaming_behavior, source="rpc")
    return NO_DATA


@handles(p.Steer)
async def steer(e: Engine, c: p.Steer, _x: HandlerContext) -> Any:
    await e.steer(c.message, c.images)
    return NO_DATA


@handles(p.FollowUp)
async def follow_up(e: Engine, c: p.FollowUp, _x: HandlerContext) -> Any:
    await e.follow_up(c.message, c.images)
    return NO_DATA


@handles(p.Abort)
async def abort(e: Engine, _c: p.Abort, _x: HandlerContext) -> Any:
    await e.abort()
    return NO_DATA


@handles(p.ClearQueue)
async def clear_queue(e: Engine, _c: p.ClearQueue, _x: HandlerContext) -> Any:
    return wire.queue_json(e.clear_queue())


@handles(p.NewSession)
async def new_session(e: Engine, c: p.NewSession, _x: HandlerContext) -> dict[str, bool]:
    return {"cancelled": not await e.sessions.new_session(c.parent_session)}


@handles(p.GetState)
async def get_state(e: Engine, _c: p.GetState, _x: HandlerContext) -> Any:
    return wire.state_json(e.state(), e.trust.status(with_skipped=True))


@handles(p.GetMessages)
async def get_messages(e: Engine, _c: p.GetMessages, _x: HandlerContext) -> Any:
    # Stored messages go out as stored: no model validation, no dump per message.
    return wire.messages_json(e.stored_messages())


@handles(p.SetModel)
async def set_model(e: Engine, c: p.SetModel, _x: HandlerContext) -> Any:
    return e.models.set_model(c.provider, c.model_id, persist=c.persist).to_wire()


@handles(p.CycleModel)
async def cycle_model(e: Engine, c: p.CycleModel, _x: HandlerContext) -> Any:
    return wire.model_cycle_json(e.models.cycle_model(persist=c.persist))


@handles(p.GetAvailableModels)
async def get_available_models(e: Engine, _c: p.GetAvailableModels, _x: HandlerContext) -> Any:
    return {"models": [m.to_wire() for m in e.models.available_models()]}


@handles(p.LogoutProvider)
async def logout_provider(e: Engine, c: p.LogoutProvider, _x: HandlerContext) -> Any:
    return wire.logout_json(e.models.logout_provider(c.provider))


@handles(p.SetThinkingLevel)
async def set_thinking_level(e: Engine, c: p.SetThinkingLevel, _x: HandlerContext) -> Any:
    return wire.thinking_level_json(e.models.set_thinking_level(c.level, persist=c.persist))


@handles(p.CycleThinkingLevel)
async def cycle_thinking_level(e: Engine, _c: p.CycleThinkingLevel, _x: HandlerContext) -> Any:
    level = e.models.cycle_thinking_level()
    return None if level is None else {"level": level}


@handles(p.GetAvailableThinkingLevels)
async def get_available_thinking_levels(e: Engine, _c: p.GetAvailableThinkingLevels, _x: HandlerContext) -> Any:
    return {"levels": e.models.supported_levels()}


@handles(p.SetSteeringMode)
async def set_steering_mode(e: Engine, c: p.SetSteeringMode, _x: HandlerContext) -> Any:
    e.set_steering_mode(c.mode)
    return NO_DATA


@handles(p.SetFollowUpMode)
async def set_follow_up_mode(e: Engine, c: p.SetFollowUpMode, _x: HandlerContext) -> Any:
    e.set_follow_up_mode(c.mode)
    return NO_DATA


@handles(p.Compact)
async def compact(e: Engine, _c: p.Compact, _x: HandlerContext) -> Any:
    return (await e.compact()).result


@handles(p.SetAutoCompaction)
async def set_auto_compaction(e: Engine, c: p.SetAutoCompaction, _x: HandlerContext) -> Any:
    e.set_auto_compaction(c.enabled)
    return NO_DATA


@handles(p.SetAutoRetry)
async def set_auto_retry(e: Engine, c: p.SetAutoRetry, _x: HandlerContext) -> Any:
    e.set_auto_retry(c.enabled)
    return NO_DATA


@handles(p.AbortRetry)
async def abort_retry(e: Engine, _c: p.AbortRetry, _x: HandlerContext) -> Any:
    e.abort_retry()
    return NO_DATA


@handles(p.Bash)
async def bash(e: Engine, c: p.Bash, x: HandlerContext) -> Any:
    request_id = None if c.id is None else str(c.id)

    def on_chunk(channel: str, text: str) -> None:
        stream: Literal["stdout", "stderr"] = "stderr" if channel == "stderr" else "stdout"
        x.write_event(BashExecutionUpdate(id=c.id, channel=stream, delta=text).to_wire())

    return wire.bash_json(await e.run_bash(c.command, request_id=request_id, on_chunk=on_chunk))


@handles(p.AbortBash)
async def abort_bash(e: Engine, c: p.AbortBash, _x: HandlerContext) -> Any:
    e.abort_bash(None if c.request_id is None else str(c.request_id))
    # Give the cancelled requests a moment to settle so their responses precede this one.
    await asyncio.sleep(0)
    return NO_DATA


@handles(p.GetSessionStats)
async def get_session_stats(e: Engine, _c: p.GetSessionStats, _x: HandlerContext) -> dict[str, Any]:
    return wire.stats_json(e.session_stats())


@handles(p.ExportHtml)
async def export_html(e: Engine, c: p.ExportHtml, _x: HandlerContext) -> Any:
    # Rendering a long session takes a while: keep the loop (and abort/get_state) responsive.
    path = await asyncio.to_thread(e.export_html, c.output_path)
    return {"path": path}


@handles(p.SwitchSession)
async def switch_session(e: Engine, c: p.SwitchSession, _x: HandlerContext) -> dict[str, bool]:
    cancelled = not await e.sessions.switch_session(c.session_path)
    recovery = e.state().session_recovery
    if not cancelled and recovery is not None:
        # Said once, as at start-up: the file was damaged and what was skipped (get_state keeps it).
        print(f"warning: {recovery.message}", file=sys.stderr, flush=True)
    return {"cancelled": cancelled}


@handles(p.Fork)
async def fork(e: Engine, c: p.Fork, _x: HandlerContext) -> Any:
    if c.restore_files:
        result, restored = await e.fork_with_files(c.entry_id)
        return wire.fork_json(result, restored)
    return wire.fork_json(await e.sessions.fork(c.entry_id), None)


@handles(p.Clone)
async def clone(e: Engine, _c: p.Clone, _x: HandlerContext) -> Any:
    return {"cancelled": not await e.sessions.clone()}


@handles(p.GetForkMessages)
async def get_fork_messages(e: Engine, _c: p.GetForkMessages, _x: HandlerContext) -> Any:
    return wire.fork_messages_json(e.sessions.fork_messages())


@handles(p.GetEntries)
async def get_entries(e: Engine, c: p.GetEntries, _x: HandlerContext) -> Any:
    # The stored lines are the wire form already: spliced, not parsed and dumped again.
    try:
        lines, leaf_id = e.sessions.stored_entries(c.since)
    except KeyError as exc:
        raise ValueError(f"Unknown entry id for since: {c.since}") from exc
    return wire.entries_json(lines, leaf_id)


@handles(p.GetTree)
async def get_tree(e: Engine, _c: p.GetTree, _x: HandlerContext) -> Any:
    return wire.tree_json(e.sessions.stored_tree())


@handles(p.GetLastAssistantText)
async def get_last_assistant_text(e: Engine, _c: p.GetLastAssistantText, _x: HandlerContext) -> Any:
    return {"text": e.last_assistant_text()}


@handles(p.SetSessionName)
async def set_session_name(e: Engine, c: p.SetSessionName, _x: HandlerContext) -> NoData:
    e.sessions.set_session_name(c.name)
    return NO_DATA


@handles(p.GetCommands)
async def get_commands(e: Engine, _c: p.GetCommands, _x: HandlerContext) -> Any:
    return {"commands": [wire.command_json(c) for c in e.commands()]}


@handles(p.ExtensionUiResponse)
async def extension_ui_response(e: Engine, c: p.ExtensionUiResponse, _x: HandlerContext) -> Any:
    # Reached only when the reader's resolve_ui_response did not accept it as an answer.
    from atomic.rpc.extension_ui import ui_response_error

    raise ValueError(ui_response_error(e, c))


# Beyond the protocol document, for editor integrations (docs/rpc.md).


@handles(p.ImportSession)
async def import_session(e: Engine, c: p.ImportSession, _x: HandlerContext) -> dict[str, bool]:
    return {"cancelled": not await e.sessions.import_session(c.input_path)}


@handles(p.SetLabel)
async def set_label(e: Engine, c: p.SetLabel, _x: HandlerContext) -> Any:
    e.sessions.set_label(c.entry_id, c.label)
    return NO_DATA


@handles(p.NavigateTree)
async def navigate_tree(e: Engine, c: p.NavigateTree, _x: HandlerContext) -> Any:
    if c.restore_files:
        if c.target_id is None:
            raise ValueError("restoreFiles needs a user message as targetId")
        text, restored = await e.navigate_with_files(c.target_id)
    else:
        text, restored = await e.sessions.navigate_to(c.target_id), None
    return wire.navigate_json(text, restored)


@handles(p.AbortCompaction)
async def abort_compaction(e: Engine, _c: p.AbortCompaction, _x: HandlerContext) -> Any:
    await e.abort_compaction()
    return NO_DATA


# Atomic's own additions.


@handles(p.SetPermissionMode)
async def set_permission_mode(e: Engine, c: p.SetPermissionMode, _x: HandlerContext) -> Any:
    e.set_permission_mode(c.mode, persist=c.persist)
    return NO_DATA


@handles(p.GetMcpServers)
async def get_mcp_servers(e: Engine, _c: p.GetMcpServers, _x: HandlerContext) -> Any:
    return wire.mcp_servers_json(e.mcp.servers(), e.trust.status())


@handles(p.GetCheckpoints)
async def get_checkpoints(e: Engine, _c: p.GetCheckpoints, _x: HandlerContext) -> Any:
    return wire.checkpoints_json(await e.checkpoints())


@handles(p.DiffCheckpoint)
async def diff_checkpoint(e: Engine, c: p.DiffCheckpoint, _x: HandlerContext) -> Any:
    return wire.checkpoint_diff_json(await e.diff_checkpoint(c.checkpoint_id))


@handles(p.RestoreCheckpoint)
async def restore_checkpoint(e: Engine, c: p.RestoreCheckpoint, _x: HandlerContext) -> Any:
    return wire.restore_json(await e.restore_checkpoint(c.checkpoint_id))


@handles(p.ReconnectMcpServer)
async def reconnect_mcp_server(e: Engine, c: p.ReconnectMcpServer, _x: HandlerContext) -> Any:
    state = await e.mcp.reconnect(c.name)
    if state is None:
        raise ValueError(f"No MCP server named {c.name!r}")
    return {"server": wire.mcp_server_json(state)}


COMMAND_MODELS: tuple[type[p.Command], ...] = tuple(MODEL_BY_TYPE.values())
COMMAND_TYPES: frozenset[str] = frozenset(MODEL_BY_TYPE)
