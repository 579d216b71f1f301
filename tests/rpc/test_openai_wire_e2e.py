"""`atomic --mode rpc` end to end over the OpenAI wire formats against local SSE servers: stream shapes that
once broke a run, and reasoning that must survive the session to reach the next request."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from atomic.rpc.client import RpcClient
from tests.providers.sse_server import Reply, ScriptedServer


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> tuple[None, dict[str, Any]]:
    data: dict[str, Any] = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
                            "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    data.update(extra)
    return (None, data)


async def test_content_parts_stream_reaches_message_end_and_agent_end(
    server: ScriptedServer, tmp_path: Path, agent_dir: Path
) -> None:
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"mistral": {
        "baseUrl": f"{server.url}/v1", "apiKey": "test-key",
        "models": [{"id": "magistral-medium-latest"}]}}}))
    server.replies.append(Reply(events=[
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Look left"}]}]}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": ", then right."}]}]}),
        chunk({"content": "Look both ways."}),
        chunk({"content": ""}, "stop", usage={"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}),
        (None, "[DONE]"),
    ]))
    client = RpcClient(["--provider", "mistral", "--model", "magistral-medium-latest", "--no-session"],
                       cwd=tmp_path, env=dict(os.environ))
    async with client:
        end = await client.run_prompt("how do I cross?")
    reply = end["messages"][-1]
    assert reply["stopReason"] == "stop"
    assert reply["content"] == [{"type": "thinking", "thinking": "Look left, then right."},
                                {"type": "text", "text": "Look both ways."}]


async def test_deepseek_reasoning_goes_back_when_models_json_redefines_the_provider(
    server: ScriptedServer, tmp_path: Path, agent_dir: Path
) -> None:
    # The user's models.json points DeepSeek elsewhere and lists the reasoner without any compat.
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"deepseek": {
        "baseUrl": f"{server.url}/v1", "apiKey": "test-key",
        "models": [{"id": "deepseek-reasoner", "contextWindow": 64000}]}}}))
    server.replies.append(Reply(events=[
        chunk({"role": "assistant", "content": None, "reasoning_content": "List the files"}),
        chunk({"content": None, "reasoning_content": " with ls."}),
        chunk({"tool_calls": [{"index": 0, "id": "call_00_ab", "type": "function",
                               "function": {"name": "bash", "arguments": '{"command": "echo hi"}'}}]}),
        chunk({"content": ""}, "tool_calls", usage={"prompt_tokens": 300, "completion_tokens": 40,
                                                    "total_tokens": 340, "prompt_cache_hit_tokens": 256}),
        (None, "[DONE]"),
    ]))
    server.replies.append(Reply(events=[chunk({"content": "It printed hi."}), chunk({}, "stop"), (None, "[DONE]")]))
    client = RpcClient(["--provider", "deepseek", "--model", "deepseek-reasoner"], cwd=tmp_path, env=dict(os.environ))
    async with client:
        end = await client.run_prompt("run echo hi")
    first = end["messages"][1]
    assert first["usage"]["input"] == 44 and first["usage"]["cacheRead"] == 256
    assert first["content"][0]["thinking"] == "List the files with ls."
    second = server.requests[1].body
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")
    assert assistant["reasoning_content"] == "List the files with ls."
    assert assistant["tool_calls"][0]["id"] == "call_00_ab"
