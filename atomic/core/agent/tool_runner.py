"""Runs one assistant turn's tool calls: concurrently, with results kept in call order."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from atomic.core.agent.config import ToolAccess
from atomic.core.events import Event, ToolExecutionEnd, ToolExecutionStart, ToolExecutionUpdate
from atomic.core.messages import TextContent, ToolCall, ToolResultMessage
from atomic.core.tools.base import ToolContext, ToolError, ToolOutput
from atomic.core.tools.schema_check import check_arguments

UPDATE_INTERVAL_S = 0.1


class ToolCallsCancelled(asyncio.CancelledError):
    """The run was cancelled while its tools ran; `results` holds one result per call (the
    unfinished ones say "Operation aborted"), so the history still pairs every call with a result."""

    def __init__(self, results: list[ToolResultMessage]) -> None:
        super().__init__()
        self.results = results


def _error_output(text: str) -> ToolOutput:
    return ToolOutput(content=[TextContent(text=text)], details=None)


async def _prepare(tools: ToolAccess, call: ToolCall) -> tuple[dict[str, Any], str | None]:
    """Arguments checked against the tool's schema; extension `tool_call` hooks may then change
    them (checked again, a hook may be wrong too) or block the call; the person approves what will run."""
    if call.arguments_error is not None:
        return dict(call.arguments), f"Invalid arguments for {call.name}: {call.arguments_error}"
    tool = tools.find(call.name)

    def checked(args: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        return check_arguments(tool, args) if tool is not None else (args, None)

    args, refused = checked(dict(call.arguments))
    if refused:
        return args, refused
    payload: dict[str, Any] = {"toolName": call.name, "toolCallId": call.id, "input": args}
    for result in await tools.hook("tool_call", payload):
        if isinstance(result, dict) and result.get("block"):
            return args, str(result.get("reason") or "Tool execution was blocked")
    args = payload["input"]
    if not isinstance(args, dict):
        return {}, f"Invalid arguments for {call.name}: a tool_call hook replaced them with something not an object"
    args, refused = checked(args)
    if refused:
        return args, refused
    # Asked after extensions had their say, so the person approves the arguments that will run; an
    # unknown tool too (a deny rule still answers it), which is answered "not found" if it gets through.
    return args, await tools.approve(call.id, call.name, args, tool.read_only if tool is not None else True)


async def run_tool_calls(
    tools: ToolAccess, emit: Callable[[Event], None], calls: list[ToolCall]
) -> list[ToolResultMessage]:
    """One result per call, in call order. Raises ToolCallsCancelled (with the results) when cancelled."""
    prepared: list[tuple[ToolCall, dict[str, Any], str | None]] = []
    for call in calls:
        emit(ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, args=call.arguments))
        args, blocked = await _prepare(tools, call)
        prepared.append((call, args, blocked))

    outputs: dict[str, tuple[ToolOutput, bool]] = {}

    async def run_one(call: ToolCall, args: dict[str, Any], blocked: str | None) -> None:
        output, is_error = await _execute(tools, emit, call, args, blocked)
        payload = {
            "toolName": call.name,
            "toolCallId": call.id,
            "input": args,
            "content": output.content,
            "details": output.details,
            "isError": is_error,
        }
        for patch in await tools.hook("tool_result", payload):
            if isinstance(patch, dict):
                output = ToolOutput(
                    content=patch.get("content", output.content),
                    details=patch.get("details", output.details),
                    file_change=output.file_change,
                    # Colours shown for content an extension replaced would not match it.
                    display=output.display if "content" not in patch else None,
                )
                is_error = bool(patch.get("isError", is_error))
        outputs[call.id] = (output, is_error)
        emit(
            ToolExecutionEnd(
                tool_call_id=call.id,
                tool_name=call.name,
                result=output.to_wire(),
                is_error=is_error,
                file_change=output.file_change,
                display=output.display,
            )
        )

    tasks = [asyncio.ensure_future(run_one(c, a, b)) for c, a, b in prepared]
    try:
        await asyncio.gather(*tasks)
    except asyncio.CancelledError as exc:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for call, _args, _blocked in prepared:
            if call.id not in outputs:
                outputs[call.id] = (_error_output("Operation aborted"), True)
                emit(
                    ToolExecutionEnd(
                        tool_call_id=call.id,
                        tool_name=call.name,
                        result=outputs[call.id][0].to_wire(),
                        is_error=True,
                    )
                )
        raise ToolCallsCancelled(_to_messages(calls, outputs)) from exc
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
    tools: ToolAccess, emit: Callable[[Event], None], call: ToolCall, args: dict[str, Any], blocked: str | None
) -> tuple[ToolOutput, bool]:
    if blocked:
        return _error_output(blocked), True
    tool = tools.find(call.name)
    if tool is None:
        return _error_output(f"Tool {call.name} not found"), True
    # A tool that may change files waits for the prompt's checkpoint (checkpoints/manager.py).
    await tools.before_tool(tool)
    last_update = 0.0

    def on_update(partial: ToolOutput) -> None:
        nonlocal last_update
        now = time.monotonic()
        if now - last_update < UPDATE_INTERVAL_S:
            return
        last_update = now
        emit(
            ToolExecutionUpdate(
                tool_call_id=call.id,
                tool_name=call.name,
                args=call.arguments,
                partial_result=partial.to_wire(),
                display=partial.display,
            )
        )

    ctx: ToolContext = tools.context(on_update)
    try:
        return await tool.execute(call.id, args, ctx), False
    except ToolError as exc:
        output = _error_output(str(exc))
        output.display = exc.display
        return output, True
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a crashing tool is reported to the model, never kills the agent
        return _error_output(f"Tool {call.name} failed: {type(exc).__name__}: {exc}"), True

