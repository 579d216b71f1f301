"""A scripted, in-process provider: tests, snapshots and demos run on it, never on the network.

A script is a list of responses, used in order. Each response is a dict:

    {"text": "Hello"}                                   plain reply
    {"thinking": "...", "text": "..."}                  with a thinking block first
    {"toolCalls": [{"name": "bash", "arguments": {...}, "id"?: "call_1"}]}
    {"toolCalls": [{"name": "read", "argumentsText": "{\"path\": "}]}   the arguments' JSON as streamed, as is
    {"error": "529 overloaded", "kind": "transient"|"overflow"|"auth"|"fatal", "status"?: 529}
    {"match": "regex", ...}                             only used when the last user text matches
    {"matchFirst": "regex", ...}                        only used when the conversation's first user text
                                                        matches (a subagent's turns: its task prompt)
    {"chunkSize": 8, "delayMs": 5}                      how text streams (defaults: 16 chars, no delay)
    {"usage": {"input": 100, "output": 20}}            reported usage
    {"stopReason": "length"}                            override the stop reason
    {"hang": true}                                      stream a little, then wait until aborted

When a script runs out, the provider echoes the last user message (`You said: ...`). Without any script
(`ScriptedProvider()`, or `--provider scripted` with no script file) every prompt gets a built-in
demonstration instead (scripted_demo.py: it lists the folder with bash, reads a file, answers in markdown).
The script comes from `ScriptedProvider(responses)` in-process, or from the JSON file named by the model's
`baseUrl` (`file:///path/script.json` or a plain path) for subprocess tests.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

from atomic.core.messages import TextContent, ToolResultMessage, Usage, UserMessage
from atomic.core.providers import base as pb

_STOP_REASONS: dict[str, Literal["stop", "length", "toolUse"]] = {"stop": "stop", "length": "length", "toolUse": "toolUse"}


def _last_user_text(messages: list[Any]) -> str:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            content = message.content
            if isinstance(content, str):
                return content
            return "".join(b.text for b in content if isinstance(b, TextContent))
        if isinstance(message, ToolResultMessage):
            return ""
    return ""


def _first_user_text(messages: list[Any]) -> str:
    for message in messages:
        if isinstance(message, UserMessage):
            content = message.content
            return content if isinstance(content, str) else "".join(b.text for b in content if isinstance(b, TextContent))
    return ""


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


class ScriptedProvider:
    def __init__(self, responses: list[dict[str, Any]] | None = None, *, demo: bool | None = None) -> None:
        self.responses: list[dict[str, Any]] = list(responses or [])
        # No script at all: show what Atomic does. A script (even an empty one) falls back to the echo.
        self.demo = responses is None if demo is None else demo
        self.requests: list[pb.StreamRequest] = []
        self._call_counter = 0

    @classmethod
    def from_file(cls, path: Path) -> ScriptedProvider:
        data = json.loads(path.read_text(encoding="utf-8"))
        responses = data.get("responses", data) if isinstance(data, dict) else data
        return cls(list(responses))

    def add(self, *responses: dict[str, Any]) -> None:
        self.responses.extend(responses)

    def _next_response(self, request: pb.StreamRequest) -> dict[str, Any]:
        last_user = _last_user_text(request.messages)
        first_user: str | None = None
        for index, response in enumerate(self.responses):
            pattern = response.get("match")
            if pattern is not None and not re.search(pattern, last_user):
                continue
            first_pattern = response.get("matchFirst")
            if first_pattern is not None:
                first_user = _first_user_text(request.messages) if first_user is None else first_user
                if not re.search(first_pattern, first_user):
                    continue
            return self.responses.pop(index)
        if self.demo:
            from atomic.core.providers.scripted_demo import demo_response

            return demo_response(request.messages, {tool.name for tool in request.tools})
        return {"text": f"You said: {last_user}" if last_user else "Done."}

    async def stream(self, request: pb.StreamRequest) -> AsyncIterator[pb.ProviderEvent]:
        self.requests.append(request)
        response = self._next_response(request)
        size = int(response.get("chunkSize", 16))
        delay = float(response.get("delayMs", 0)) / 1000.0

        async def pause() -> None:
            # Always yield to the loop so abort and other commands are served mid-stream.
            await asyncio.sleep(delay)

        await pause()
        if "error" in response and not response.get("errorAfterText"):
            raise pb.ProviderError(
                str(response["error"]),
                kind=response.get("kind", "fatal"),
                status=response.get("status"),
                retry_after_s=response.get("retryAfterS"),
            )
        usage_spec = response.get("usage") or {}
        input_tokens = int(usage_spec.get("input", 10))
        usage = Usage(input=input_tokens, cache_read=int(usage_spec.get("cacheRead", 0)))
        usage.total_tokens = usage.input + usage.cache_read
        yield pb.UsageUpdate(usage.model_copy())

        if response.get("thinking"):
            yield pb.ThinkingStart("think")
            for piece in _chunks(response["thinking"], size):
                await pause()
                yield pb.ThinkingDelta("think", piece)
            yield pb.ThinkingEnd("think", signature=response.get("thinkingSignature"))

        text = response.get("text")
        if text is not None:
            yield pb.TextStart("text")
            for piece in _chunks(text, size):
                await pause()
                yield pb.TextDelta("text", piece)
            if response.get("hang"):
                await asyncio.Event().wait()
            if response.get("errorAfterText"):
                raise pb.ProviderError(str(response["error"]), kind=response.get("kind", "transient"))
            yield pb.TextEnd("text")
        elif response.get("hang"):
            await asyncio.Event().wait()

        calls = response.get("toolCalls") or []
        for call in calls:
            self._call_counter += 1
            key = f"call{self._call_counter}"
            call_id = call.get("id") or f"call_{self._call_counter}"
            yield pb.ToolCallStart(key, call_id, call["name"])
            args_text = call["argumentsText"] if "argumentsText" in call else json.dumps(call.get("arguments", {}))
            for piece in _chunks(args_text, max(size, 8)):
                await pause()
                yield pb.ToolCallDelta(key, piece)
            yield pb.ToolCallEnd(key)

        output_tokens = int(usage_spec.get("output", max(1, len(text or "") // 4)))
        final = usage.model_copy()
        final.output = output_tokens
        final.total_tokens = final.input + final.output + final.cache_read + final.cache_write
        yield pb.UsageUpdate(final)
        stop = response.get("stopReason") or ("toolUse" if calls else "stop")
        if stop not in _STOP_REASONS:
            raise ValueError(f'scripted response: "stopReason" must be one of {", ".join(_STOP_REASONS)}, not {stop!r}')
        yield pb.Done(_STOP_REASONS[stop])
