"""`atomic --mode rpc` end to end through a real SDK: an Anthropic-format SSE server on localhost drives a
tool turn (bash), and the second request carries the tool result back to the model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.rpc.client import RpcClient
from tests.providers.sse_server import Reply, ScriptedServer


def anthropic_reply(blocks: list[dict[str, Any]], stop_reason: str) -> Reply:
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test", "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 120, "output_tokens": 1, "cache_read_input_tokens": 100,
                      "cache_creation_input_tokens": 0}}}),
    ]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                                   "content_block": {"type": "text", "text": ""}}))
            for piece in (block["text"][:5], block["text"][5:]):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "text_delta", "text": piece}}))
        else:
            events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
            args = json.dumps(block["input"])
            for piece in (args[:6], args[6:]):
                events.append(("content_block_delta", {"type": "content_block_delta", "index": index,
                                                       "delta": {"type": "input_json_delta", "partial_json": piece}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                                          "stop_sequence": None},
                                     "usage": {"output_tokens": 30}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return Reply(events=events)


async def test_tool_turn_over_the_anthropic_messages_wire(server: ScriptedServer, tmp_path: Path, agent_dir: Path) -> None:
    import os

    (agent_dir / "models.json").write_text(json.dumps({"providers": {"local-claude": {
        "baseUrl": server.url, "api": "anthropic-messages", "apiKey": "test-key",
        "models": [{"id": "claude-test", "reasoning": False, "contextWindow": 100000, "maxTokens": 4096,
                    "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}}]}}}))
    server.replies.append(anthropic_reply(
        [{"type": "text", "text": "Checking now."},
         {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "echo from-tool"}}],
        "tool_use"))
    server.replies.append(anthropic_reply([{"type": "text", "text": "The tool printed from-tool."}], "end_turn"))
    client = RpcClient(["--provider", "local-claude", "--model", "claude-test", "--no-session"],
                       cwd=tmp_path, env=dict(os.environ))
    async with client:
        end = await client.run_prompt("run echo")
        assert [m["role"] for m in end["messages"]] == ["user", "assistant", "toolResult", "assistant"]
        tool_end = await client.wait_for("tool_execution_end")
        assert tool_end["result"]["content"][0]["text"] == "from-tool" and tool_end["isError"] is False
        assert await client.get_last_assistant_text() == "The tool printed from-tool."
        stats = await client.call("get_session_stats")
    first = end["messages"][1]
    assert first["stopReason"] == "toolUse"
    assert first["content"][1] == {"type": "toolCall", "id": "toolu_1", "name": "bash",
                                   "arguments": {"command": "echo from-tool"}}
    assert first["usage"]["cacheRead"] == 100 and first["usage"]["output"] == 30
    # Anthropic reports input_tokens without the cached part: 120 fresh + 100 cache-read tokens.
    assert first["usage"]["cost"]["total"] == pytest.approx((120 * 3 + 30 * 15 + 100 * 0.3) / 1e6)
    assert stats["tokens"]["cacheRead"] == 200 and stats["cost"] > 0
    # The second request replays the tool call and carries its result.
    second = server.requests[1].body
    tool_result = second["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    assert "from-tool" in json.dumps(tool_result["content"])
    assert server.requests[0].body["tools"][0]["name"] in {"read", "bash", "edit", "write"}
