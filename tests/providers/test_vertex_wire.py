"""Vertex AI (`google-vertex`) against a local server: Gemini and Claude, express mode and ADC.

The ADC case runs google-auth for real: a service account file (a key made for the test) whose
`token_uri` is the local server, which answers the signed-JWT token request like Google's token
endpoint; the stream request must then carry that access token, and the next turn reuses it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from atomic.core.messages import TextContent, ToolResultMessage, UserMessage
from atomic.core.providers.base import ToolSpec
from atomic.core.providers.google_vertex import GoogleVertexProvider
from atomic.core.providers.vertex_auth import forget_credentials
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

WEATHER = ToolSpec("weather", "Weather for a place", {"type": "object", "properties": {"city": {"type": "string"}}})
TOKEN = "ya29.local-test-token"


@pytest.fixture(autouse=True)
def fresh_credentials(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # google-auth must not probe a metadata server
    forget_credentials()
    yield
    forget_credentials()


def gemini_frame(parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finishReason"] = finish
    chunk = {"candidates": [candidate], "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 4,
                                                          "thoughtsTokenCount": 30, "trafficType": "ON_DEMAND"},
             "modelVersion": "gemini-2.5-flash", "responseId": "hACz"}
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


def vertex_model(server: ScriptedServer, model_id: str, **fields: Any) -> Any:
    return make_model(f"{server.url}/v1", id=model_id, api="google-vertex", provider="google-vertex", **fields)


def service_account(tmp_path: Path, server: ScriptedServer) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = tmp_path / "service-account.json"
    path.write_text(json.dumps({
        "type": "service_account", "project_id": "proj-from-file", "private_key_id": "k1",
        "private_key": pem.decode(), "client_email": "atomic@proj-from-file.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": f"{server.url}/token",
    }))
    return path


def token_reply() -> Reply:
    return Reply(status=200, body={"access_token": TOKEN, "expires_in": 3600, "token_type": "Bearer"})


async def test_express_mode_key_reaches_the_global_publisher_path(server: ScriptedServer) -> None:
    server.replies.append(Reply(raw_frames=[gemini_frame([{"text": "Olá!"}]), gemini_frame([{"text": " Oi"}], "STOP")]))
    model = vertex_model(server, "gemini-2.5-flash", reasoning=True)
    outcome = await assemble(GoogleVertexProvider(), make_request(model, api_key="AQ.express-key"))
    assert outcome.error is None and outcome.message.text() == "Olá! Oi"
    assert outcome.message.usage.output == 34
    sent = server.requests[0]
    assert sent.path == "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert sent.headers["x-goog-api-key"] == "AQ.express-key" and "authorization" not in sent.headers
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]


async def test_adc_service_account_token_then_a_tool_turn_and_the_next_request(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(service_account(tmp_path, server)))
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    model = vertex_model(server, "gemini-2.5-flash")
    call = {"functionCall": {"name": "weather", "args": {"city": "Florence"}}}
    server.replies += [token_reply(), Reply(raw_frames=[gemini_frame([call], "STOP")])]
    outcome = await assemble(GoogleVertexProvider(), make_request(model, api_key=None, tools=[WEATHER]))
    assert outcome.error is None and outcome.message.stop_reason == "toolUse"

    token_request, stream_request = server.requests
    assert token_request.path == "/token"
    form = parse_qs(token_request.raw.decode())
    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"] and form["assertion"][0].count(".") == 2
    assert stream_request.path == (
        "/v1/projects/proj-from-file/locations/europe-west4/publishers/google/models/"
        "gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert stream_request.headers["authorization"] == f"Bearer {TOKEN}"
    assert "x-goog-api-key" not in stream_request.headers

    (tool_call,) = outcome.message.tool_calls()
    history = [UserMessage(content="weather?"), outcome.message,
               ToolResultMessage(tool_call_id=tool_call.id, tool_name="weather", content=[TextContent(text="40 C")])]
    server.replies.append(Reply(raw_frames=[gemini_frame([{"text": "Hot."}], "STOP")]))
    follow = await assemble(GoogleVertexProvider(), make_request(model, history, api_key=None, tools=[WEATHER]))
    assert follow.error is None and follow.message.text() == "Hot."
    assert len(server.requests) == 3  # the token was still valid: no second token request
    contents = server.requests[-1].body["contents"]
    assert contents[1] == {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"city": "Florence"}}}]}
    assert contents[2] == {"role": "user", "parts": [
        {"functionResponse": {"name": "weather", "response": {"output": "40 C"}}}]}


def anthropic_events(blocks: list[list[tuple[str, dict[str, Any]]]], stop: str) -> list[Any]:
    events: list[Any] = [("message_start", {"type": "message_start", "message": {
        "id": "msg_vrtx_01", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5",
        "usage": {"input_tokens": 400, "output_tokens": 1, "cache_read_input_tokens": 0}}})]
    for block in blocks:
        events += block
    events += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop},
                                  "usage": {"output_tokens": 50}}),
               ("message_stop", {"type": "message_stop"})]
    return events


def tool_block(index: int) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": {
            "type": "tool_use", "id": "toolu_vrtx_01", "name": "weather", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {
            "type": "input_json_delta", "partial_json": '{"city": "Florence"}'}}),
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


def text_block(index: int, text: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("content_block_start", {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


async def test_claude_on_vertex_stream_raw_predict_tool_turn_and_the_next_request(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(service_account(tmp_path, server)))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-east5")
    model = vertex_model(server, "claude-sonnet-4-5@20250929", reasoning=True)
    server.replies += [token_reply(),
                       Reply(events=anthropic_events([text_block(0, "Checking."), tool_block(1)], "tool_use"))]
    outcome = await assemble(GoogleVertexProvider(), make_request(model, api_key=None, tools=[WEATHER]))
    assert outcome.error is None and outcome.message.stop_reason == "toolUse"
    assert outcome.message.response_id == "msg_vrtx_01"
    sent = server.requests[1]
    assert sent.path == "/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict"
    assert sent.headers["authorization"] == f"Bearer {TOKEN}"
    assert sent.body["anthropic_version"] == "vertex-2023-10-16" and sent.body["stream"] is True
    assert "model" not in sent.body
    assert sent.body["tools"][0]["name"] == "weather"

    history = [UserMessage(content="weather?"), outcome.message,
               ToolResultMessage(tool_call_id="toolu_vrtx_01", tool_name="weather", content=[TextContent(text="40 C")])]
    server.replies.append(Reply(events=anthropic_events([text_block(0, "Hot.")], "end_turn")))
    follow = await assemble(GoogleVertexProvider(), make_request(model, history, api_key=None, tools=[WEATHER]))
    assert follow.error is None and follow.message.text() == "Hot."
    messages = server.requests[-1].body["messages"]
    assert messages[1]["content"][1] == {"type": "tool_use", "id": "toolu_vrtx_01", "name": "weather",
                                         "input": {"city": "Florence"}}
    assert messages[2]["content"][0]["tool_use_id"] == "toolu_vrtx_01"


async def test_claude_error_bodies_keep_the_servers_words(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atomic.core.providers.google_vertex._credentials",
                        _fixed_credentials({"authorization": "Bearer t"}, "p"))
    server.replies.append(Reply(status=429, body={"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                                            "message": "Quota exceeded for aiplatform.googleapis.com."}}))
    outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "claude-haiku-4-5@20251001")))
    assert outcome.error is not None and outcome.error.kind == "transient"
    assert outcome.error.message == "429 RESOURCE_EXHAUSTED: Quota exceeded for aiplatform.googleapis.com."
    server.replies.append(Reply(status=400, body={"type": "error", "error": {"type": "invalid_request_error",
                                                                             "message": "max_tokens: too large"}}))
    outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "claude-haiku-4-5@20251001")))
    assert outcome.error is not None and outcome.error.message == "400 invalid_request_error: max_tokens: too large"


def _fixed_credentials(headers: dict[str, str], project: str | None) -> Any:
    async def credentials(_request: Any) -> tuple[dict[str, str], str | None]:
        return dict(headers), project

    return credentials


async def test_a_missing_google_auth_names_the_install_command(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)  # importing it now raises ImportError
    outcome: Outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "gemini-2.5-pro"), api_key=None))
    assert outcome.error is not None
    assert "pip install 'atomic-agent[vertex]'" in outcome.error.message
    assert server.requests == []


async def test_no_credentials_say_how_to_log_in(server: ScriptedServer) -> None:
    outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "gemini-2.5-pro"), api_key=None))
    assert outcome.error is not None and outcome.error.kind == "auth"
    assert "gcloud auth application-default login" in outcome.error.message


async def test_express_mode_cannot_reach_claude(server: ScriptedServer) -> None:
    outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "claude-opus-4-1@20250805")))
    assert outcome.error is not None and "express-mode" in outcome.error.message and server.requests == []


def test_the_location_fills_the_catalog_address() -> None:
    from atomic.core.providers.google_vertex import base_url

    model = make_model("https://{location}-aiplatform.googleapis.com/v1", id="gemini-2.5-pro", api="google-vertex")
    request = make_request(model)
    assert base_url(request, "us-central1", express=False) == "https://us-central1-aiplatform.googleapis.com/v1"
    assert base_url(request, "global", express=False) == "https://aiplatform.googleapis.com/v1"
    assert base_url(request, "us-central1", express=True) == "https://aiplatform.googleapis.com/v1"


async def test_a_token_about_to_expire_is_refreshed_before_the_next_request(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(service_account(tmp_path, server)))
    model = vertex_model(server, "gemini-2.5-flash")
    short = Reply(status=200, body={"access_token": "ya29.short", "expires_in": 60, "token_type": "Bearer"})
    server.replies += [short, Reply(raw_frames=[gemini_frame([{"text": "one"}], "STOP")]),
                       token_reply(), Reply(raw_frames=[gemini_frame([{"text": "two"}], "STOP")])]
    for _ in range(2):
        outcome = await assemble(GoogleVertexProvider(), make_request(model, api_key=None))
        assert outcome.error is None
    paths = [r.path for r in server.requests]
    assert paths[0] == paths[2] == "/token"
    assert server.requests[1].headers["authorization"] == "Bearer ya29.short"
    assert server.requests[3].headers["authorization"] == f"Bearer {TOKEN}"


async def test_a_refused_refresh_says_to_sign_in_again(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(service_account(tmp_path, server)))
    server.replies.append(Reply(status=400, body={"error": "invalid_grant", "error_description": "Invalid JWT Signature."}))
    outcome = await assemble(GoogleVertexProvider(), make_request(vertex_model(server, "gemini-2.5-flash"), api_key=None))
    assert outcome.error is not None and outcome.error.kind == "auth"
    assert "Invalid JWT Signature" in outcome.error.message and "application-default login" in outcome.error.message
    assert [r.path for r in server.requests] == ["/token"]

