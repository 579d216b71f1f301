"""Runs one assistant turn's tool calls: concurrently, with results kept in call order."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from atomic.core.events import ToolExecutionEnd, ToolExecutionStart, ToolExecutionUpdate
from atomic.core.messages import TextContent, ToolCall, ToolResultMessage
from atomic.core.sandbox.escalation import review_escalation, wants_escalation
from atomic.core.tools.base import ToolContext, ToolError, ToolOutput

if TYPE_CHECKING:
    from atomic.core.agent.host import LoopHost

UPDATE_INTERVAL_S = 0.1


def _error_output(text: str) -> ToolOutput:
    return ToolOutput(content=[TextContent(text=text)], details=None)


async def _prepare(host: LoopHost, call: ToolCall) -> tuple[dict[str, Any], str | None]:
    """Extension `tool_call` hooks may change the arguments or block the call."""
    args = dict(call.arguments)
    if "__invalid_json__" in args:
        return args, f"Invalid tool arguments (not valid JSON): {args['__invalid_json__'][:500]}"
    payload: dict[str, Any] = {"toolName": call.name, "toolCallId": call.id, "input": args}
    for result in await host.hooks.emit("tool_call", payload):
        if isinstance(result, dict) and result.get("block"):
            return args, str(result.get("reason") or "Tool execution was blocked")
    # Asked after extensions had their say, so the person approves the arguments that will run.
    tool = host.find_tool(call.name)
    read_only = tool.read_only if tool is not None else True
    if wants_escalation(call.name, payload["input"]) and host.sandbox.policy().active:
        escalation = host.sandbox.policy().escalation
        refused = await review_escalation(host.permissions, escalation, call.id, payload["input"])
    else:
        refused = await host.permissions.check(call.id, call.name, payload["input"], read_only)
    return payload["input"], refused


async def run_tool_calls(host: LoopHost, calls: list[ToolCall]) -> list[ToolResultMessage]:
    prepared: list[tuple[ToolCall, dict[str, Any], str | None]] = []
    for call in calls:
        host.emit(ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, args=call.arguments))
        args, blocked = await _prepare(host, call)
        prepared.append((call, args, blocked))

    outputs: dict[str, tuple[ToolOutput, bool]] = {}

    async def run_one(call: ToolCall, args: dict[str, Any], blocked: str | None) -> None:
        output, is_error = await _execute(host, call, args, blocked)
        payload = {
            "toolName": call.name,
            "toolCallId": call.id,
            "input": args,
            "content": output.content,
            "details": output.details,
            "isError": is_error,
        }
        for patch in await host.hooks.emit("tool_result", payload):
            if isinstance(patch, dict):
                output = ToolOutput(
                    content=patch.get("content", output.content),
                    details=patch.get("details", output.details),
                    file_change=output.file_change,
                )
                is_error = bool(patch.get("isError", is_error))
        outputs[call.id] = (output, is_error)
        host.emit(
            ToolExecutionEnd(
                tool_call_id=call.id,
                tool_name=call.name,
                result=output.to_wire(),
                is_error=is_error,
                file_change=output.file_change,
            )
        )

    tasks = [asyncio.ensure_future(run_one(c, a, b)) for c, a, b in prepared]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for call, _args, _blocked in prepared:
            if call.id not in outputs:
                outputs[call.id] = (_error_output("Operation aborted"), True)
                host.emit(
                    ToolExecutionEnd(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        result=outputs[call.id][0].to_wire(),
                        is_error=True,
                    )
                )
        host.pending_tool_results = _to_messages(calls, outputs)
        raise
    return _to_messages(calls, outputs)


def _to_messages(calls: list[ToolCall], outputs: dict[str, tuple[ToolOutput, bool]]) -> list[ToolResultMessage]:
    results = []
    for call in calls:
        output, is_error = outputs.get(call.id, (_error_output("Operation aborted"), True))
        results.append(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=output.content,
                details=output.details,
                is_error=is_error,
            )
        )
    return results


async def _execute(
    host: LoopHost, call: ToolCall, args: dict[str, Any], blocked: str | None
) -> tuple[ToolOutput, bool]:
    if blocked:
        return _error_output(blocked), True
    tool = host.find_tool(call.name)
    if tool is None:
        return _error_output(f"Tool {call.name} not found"), True
    # A tool that may change files waits for the prompt's checkpoint (checkpoints/manager.py).
    await host.before_tool(tool)
    last_update = 0.0

    def on_update(partial: ToolOutput) -> None:
        nonlocal last_update
        now = time.monotonic()
        if now - last_update < UPDATE_INTERVAL_S:
            return
        last_update = now
        host.emit(
            ToolExecutionUpdate(
                tool_call_id=call.id, tool_name=call.name, args=call.arguments, partial_result=partial.to_wire()
            )
        )

    ctx: ToolContext = host.tool_context(on_update)
    try:
        return await tool.execute(call.id, args, ctx), False
    except ToolError as exc:
        return _error_output(str(exc)), True
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a crashing tool is reported to the model, never kills the agent
        return _error_output(f"Tool {call.name} failed: {type(exc).__name__}: {exc}"), True

