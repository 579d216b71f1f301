"""One function per RPC command: translate a typed command into engine calls and response data.

No agent logic lives here; every behaviour is the engine's (atomic.core.engine.AgentSession).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from atomic.core.engine.session import AgentSession
from atomic.rpc import protocol as p
from atomic.rpc.wire_json import entries_json, messages_json, tree_json

Handler = Callable[[AgentSession, Any, "HandlerContext"], Awaitable[Any]]


class HandlerContext:
    """What a handler may need from the server besides the engine: event output for bash deltas."""

    def __init__(self, write_event: Callable[[dict[str, Any]], None]) -> None:
        self.write_event = write_event


class NoData:
    """Marker: the response carries no `data` field."""


NO_DATA = NoData()


async def prompt(s: AgentSession, c: p.Prompt, _x: HandlerContext) -> Any:
    await s.prompt(c.message, c.images, c.streaming_behavior, source="rpc")
    return NO_DATA


async def steer(s: AgentSession, c: p.Steer, _x: HandlerContext) -> Any:
    await s.steer(c.message, c.images)
    return NO_DATA


async def follow_up(s: AgentSession, c: p.FollowUp, _x: HandlerContext) -> Any:
    await s.follow_up(c.message, c.images)
    return NO_DATA


async def abort(s: AgentSession, _c: p.Abort, _x: HandlerContext) -> Any:
    await s.abort()
    return NO_DATA


async def clear_queue(s: AgentSession, _c: p.ClearQueue, _x: HandlerContext) -> Any:
    return s.clear_queue()


async def new_session(s: AgentSession, c: p.NewSession, _x: HandlerContext) -> Any:
    return {"cancelled": not await s.new_session(c.parent_session)}


async def get_state(s: AgentSession, _c: p.GetState, _x: HandlerContext) -> Any:
    return s.get_state()


async def get_messages(s: AgentSession, _c: p.GetMessages, _x: HandlerContext) -> Any:
    # Stored messages go out as stored: no model validation, no dump per message.
    return messages_json(s.context_items)


async def set_model(s: AgentSession, c: p.SetModel, _x: HandlerContext) -> Any:
    return s.set_model(c.provider, c.model_id, persist=c.persist).to_wire()


async def cycle_model(s: AgentSession, c: p.CycleModel, _x: HandlerContext) -> Any:
    return s.cycle_model(persist=c.persist)


async def get_available_models(s: AgentSession, _c: p.GetAvailableModels, _x: HandlerContext) -> Any:
    return {"models": [m.to_wire() for m in s.available_models()]}


async def logout_provider(s: AgentSession, c: p.LogoutProvider, _x: HandlerContext) -> Any:
    return s.logout_provider(c.provider)


async def set_thinking_level(s: AgentSession, c: p.SetThinkingLevel, _x: HandlerContext) -> Any:
    return s.set_thinking_level(c.level, persist=c.persist)


async def cycle_thinking_level(s: AgentSession, _c: p.CycleThinkingLevel, _x: HandlerContext) -> Any:
    level = s.cycle_thinking_level()
    return None if level is None else {"level": level}


async def get_available_thinking_levels(s: AgentSession, _c: Any, _x: HandlerContext) -> Any:
    return {"levels": s.supported_levels()}


async def set_steering_mode(s: AgentSession, c: p.SetSteeringMode, _x: HandlerContext) -> Any:
    s.set_steering_mode(c.mode)
    return NO_DATA


async def set_follow_up_mode(s: AgentSession, c: p.SetFollowUpMode, _x: HandlerContext) -> Any:
    s.set_follow_up_mode(c.mode)
    return NO_DATA


async def compact(s: AgentSession, _c: p.Compact, _x: HandlerContext) -> Any:
    return await s.compact()


async def set_auto_compaction(s: AgentSession, c: p.SetAutoCompaction, _x: HandlerContext) -> Any:
    s.set_auto_compaction(c.enabled)
    return NO_DATA


async def set_auto_retry(s: AgentSession, c: p.SetAutoRetry, _x: HandlerContext) -> Any:
    s.set_auto_retry(c.enabled)
    return NO_DATA


async def abort_retry(s: AgentSession, _c: p.AbortRetry, _x: HandlerContext) -> Any:
    s.abort_retry()
    return NO_DATA


async def bash(s: AgentSession, c: p.Bash, x: HandlerContext) -> Any:
    request_id = None if c.id is None else str(c.id)

    def on_chunk(channel: str, text: str) -> None:
        event: dict[str, Any] = {"type": "bash_execution_update"}
        if c.id is not None:
            event["id"] = c.id
        event["channel"] = channel
        event["delta"] = text
        x.write_event(event)

    message = await s.run_bash(c.command, request_id=request_id, on_chunk=on_chunk)
    data: dict[str, Any] = {
        "output": message.output,
        "exitCode": message.exit_code,
        "cancelled": message.cancelled,
        "truncated": message.truncated,
    }
    if message.truncated:
        data["fullOutputPath"] = message.full_output_path
    return data


async def abort_bash(s: AgentSession, c: p.AbortBash, _x: HandlerContext) -> Any:
    s.abort_bash(None if c.request_id is None else str(c.request_id))
    # Give the cancelled requests a moment to settle so their responses precede this one.
    await asyncio.sleep(0)
    return NO_DATA


async def get_session_stats(s: AgentSession, _c: p.GetSessionStats, _x: HandlerContext) -> Any:
    return s.session_stats()


async def export_html(s: AgentSession, c: p.ExportHtml, _x: HandlerContext) -> Any:
    # Rendering a long session takes a while: keep the loop (and abort/get_state) responsive.
    path = await asyncio.to_thread(s.export_html, c.output_path)
    return {"path": path}


async def switch_session(s: AgentSession, c: p.SwitchSession, _x: HandlerContext) -> Any:
    return {"cancelled": not await s.switch_session(c.session_path)}


async def fork(s: AgentSession, c: p.Fork, _x: HandlerContext) -> Any:
    text, cancelled = await s.fork(c.entry_id)
    return {"text": text, "cancelled": cancelled}


async def clone(s: AgentSession, _c: p.Clone, _x: HandlerContext) -> Any:
    return {"cancelled": not await s.clone()}


async def get_fork_messages(s: AgentSession, _c: p.GetForkMessages, _x: HandlerContext) -> Any:
    return {"messages": s.get_fork_messages()}


async def get_entries(s: AgentSession, c: p.GetEntries, _x: HandlerContext) -> Any:
    # The stored lines are the wire form already: spliced, not parsed and dumped again.
    try:
        return entries_json(s.store, c.since)
    except KeyError as exc:
        raise ValueError(f"Unknown entry id for since: {c.since}") from exc


async def get_tree(s: AgentSession, _c: p.GetTree, _x: HandlerContext) -> Any:
    return tree_json(s.store)


async def get_last_assistant_text(s: AgentSession, _c: Any, _x: HandlerContext) -> Any:
    return {"text": s.last_assistant_text()}


async def set_session_name(s: AgentSession, c: p.SetSessionName, _x: HandlerContext) -> Any:
    s.set_session_name(c.name)
    return NO_DATA


async def get_commands(s: AgentSession, _c: p.GetCommands, _x: HandlerContext) -> Any:
    commands: list[dict[str, Any]] = []
    if s.extensions is not None:
        commands.extend(s.extensions.command_items())
    if s.resources is not None:
        commands.extend(s.resources.commands())
    return {"commands": commands}


async def extension_ui_response(s: AgentSession, c: p.ExtensionUiResponse, _x: HandlerContext) -> Any:
    # Reached only when the reader's resolve_ui_response did not accept it as an answer.
    from atomic.rpc.extension_ui import ui_response_error

    raise ValueError(ui_response_error(s, c))


async def import_session(s: AgentSession, c: p.ImportSession, _x: HandlerContext) -> Any:
    return {"cancelled": not await s.import_session(c.input_path)}


async def set_label(s: AgentSession, c: p.SetLabel, _x: HandlerContext) -> Any:
    s.set_label(c.entry_id, c.label)
    return NO_DATA


async def navigate_tree(s: AgentSession, c: p.NavigateTree, _x: HandlerContext) -> Any:
    text = await s.navigate_to(c.target_id)
    data: dict[str, Any] = {"cancelled": False}
    if text is not None:
        data["editorText"] = text
    return data


async def abort_compaction(s: AgentSession, _c: p.AbortCompaction, _x: HandlerContext) -> Any:
    s.cancel_compaction()
    await s.wait_compaction_idle()
    return NO_DATA


async def get_mcp_servers(s: AgentSession, _c: p.GetMcpServers, _x: HandlerContext) -> Any:
    from atomic.rpc.mcp_wire import mcp_servers_wire

    return mcp_servers_wire(s)


async def set_permission_mode(s: AgentSession, c: p.SetPermissionMode, _x: HandlerContext) -> Any:
    s.set_permission_mode(c.mode, persist=c.persist)
    return NO_DATA


HANDLERS: dict[str, Handler] = {
    "prompt": prompt,
    "steer": steer,
    "follow_up": follow_up,
    "abort": abort,
    "clear_queue": clear_queue,
    "new_session": new_session,
    "get_state": get_state,
    "get_messages": get_messages,
    "set_model": set_model,
    "cycle_model": cycle_model,
    "get_available_models": get_available_models,
    "logout_provider": logout_provider,
    "set_thinking_level": set_thinking_level,
    "cycle_thinking_level": cycle_thinking_level,
    "get_available_thinking_levels": get_available_thinking_levels,
    "set_steering_mode": set_steering_mode,
    "set_follow_up_mode": set_follow_up_mode,
    "compact": compact,
    "set_auto_compaction": set_auto_compaction,
    "set_auto_retry": set_auto_retry,
    "abort_retry": abort_retry,
    "bash": bash,
    "abort_bash": abort_bash,
    "get_session_stats": get_session_stats,
    "export_html": export_html,
    "switch_session": switch_session,
    "fork": fork,
    "clone": clone,
    "get_fork_messages": get_fork_messages,
    "get_entries": get_entries,
    "get_tree": get_tree,
    "get_last_assistant_text": get_last_assistant_text,
    "set_session_name": set_session_name,
    "get_commands": get_commands,
    "extension_ui_response": extension_ui_response,
    # Beyond the protocol document, as the TypeScript Atomic offers them.
    "import_session": import_session,
    "set_label": set_label,
    "navigate_tree": navigate_tree,
    "abort_compaction": abort_compaction,
    # Atomic's own additions.
    "set_permission_mode": set_permission_mode,
    "get_mcp_servers": get_mcp_servers,
}
