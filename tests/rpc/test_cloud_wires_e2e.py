"""`atomic --mode rpc` end to end over the new wires against local servers: a tool-calling turn
and the request after it, through the real engine, session and retry loop."""

from __future__ import annotations

import json
import os
from pathlib import Path

from atomic.rpc.client import RpcClient
from tests.providers import aws_wire
from tests.providers.sse_server import Reply, ScriptedServer


def gemini(parts: list[dict[str, object]], finish: str | None = None) -> bytes:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    return f"data: {json.dumps({'candidates': [candidate], 'responseId': 'r1'})}\r\n\r\n".encode()


async def test_gemini_waits_no_longer_than_the_retry_settings_allow_then_runs_a_tool(
    server: ScriptedServer, tmp_path: Path, agent_dir: Path
) -> None:
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"google": {"baseUrl": f"{server.url}/v1beta"}}}))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"provider": {"maxRetryDelayMs": 50}}}))
    server.replies += [
        Reply(status=429, body={"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota exceeded.",
                                          "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                                       "retryDelay": "34.4s"}]}}),
        Reply(raw_frames=[gemini([{"text": "Running it.", "thoughtSignature": "VFhU"},
                                  {"functionCall": {"name": "bash", "args": {"command": "echo hi"}, "id": "fc1"},
                                   "thoughtSignature": "RkMx"}], "STOP")]),
        Reply(raw_frames=[gemini([{"text": "It printed hi."}], "STOP")]),
    ]
    env = dict(os.environ, GEMINI_API_KEY="g-test-key")
    client = RpcClient(["--provider", "google", "--model", "gemini-3-flash-preview", "--no-session"],
                       cwd=tmp_path, env=env)
    async with client:
        end = await client.run_prompt("run echo hi")
        retry = await client.wait_for("auto_retry_start")
    assert retry["delayMs"] == 50 and "Quota exceeded." in retry["errorMessage"]
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "It printed hi."}]
    last = server.requests[-1]
    assert last.headers["x-goog-api-key"] == "g-test-key"
    contents = last.body["contents"]
    assert contents[1] == {"role": "model", "parts": [
        {"text": "Running it.", "thoughtSignature": "VFhU"},
        {"functionCall": {"name": "bash", "args": {"command": "echo hi"}, "id": "fc1"}, "thoughtSignature": "RkMx"}]}
    (response,) = contents[2]["parts"]
    assert response["functionResponse"]["id"] == "fc1" and "hi" in response["functionResponse"]["response"]["output"]


async def test_bedrock_signs_each_request_and_sends_the_tool_result_back(
    server: ScriptedServer, tmp_path: Path, agent_dir: Path
) -> None:
    model_id = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"amazon-bedrock": {"baseUrl": server.url}}}))
    kind = "application/vnd.amazon.eventstream"
    start = aws_wire.event("messageStart", {"role": "assistant"})
    server.replies += [
        Reply(content_type=kind, raw_frames=[
            start,
            aws_wire.event("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {
                "toolUseId": "tooluse_1", "name": "bash"}}}),
            aws_wire.event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"toolUse": {
                "input": '{"command": "echo hi"}'}}}),
            aws_wire.event("contentBlockStop", {"contentBlockIndex": 0}),
            aws_wire.event("messageStop", {"stopReason": "tool_use"}),
        ]),
        Reply(content_type=kind, raw_frames=[
            start,
            aws_wire.event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "It printed hi."}}),
            aws_wire.event("contentBlockStop", {"contentBlockIndex": 0}),
            aws_wire.event("messageStop", {"stopReason": "end_turn"}),
            aws_wire.event("metadata", {"usage": {"inputTokens": 20, "outputTokens": 5, "totalTokens": 25}}),
        ]),
    ]
    env = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDE2E", AWS_SECRET_ACCESS_KEY="e2e-secret", AWS_REGION="eu-west-1",
               AWS_EC2_METADATA_DISABLED="true")
    client = RpcClient(["--provider", "amazon-bedrock", "--model", model_id, "--no-session"], cwd=tmp_path, env=env)
    async with client:
        end = await client.run_prompt("run echo hi")
    assert end["messages"][-1]["content"] == [{"type": "text", "text": "It printed hi."}]
    assert end["messages"][-1]["usage"]["input"] == 20
    for request in server.requests:
        assert aws_wire.sigv4_problems(request, "AKIDE2E", "e2e-secret", "eu-west-1") == []
    (result,) = [b for b in server.requests[-1].body["messages"][2]["content"] if "toolResult" in b]
    assert result["toolResult"]["toolUseId"] == "tooluse_1" and "hi" in result["toolResult"]["content"][0]["text"]
