"""Amazon Bedrock (`bedrock-converse-stream`) against a local server that speaks the binary AWS
event stream, with the SigV4 signature of every request checked on the server's side.

Fixtures are small hand-built frames in the shapes Bedrock sends: Claude reasoning with its
signature then a tool use, redacted reasoning, a Nova server tool, cache usage, max_tokens, an
exception frame, an HTTP 400, a corrupt frame.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from atomic.core.messages import TextContent, ThinkingContent, ToolResultMessage, UserMessage
from atomic.core.providers.base import ToolSpec
from atomic.core.providers.bedrock_converse import BedrockConverseProvider, forget_sessions
from tests.providers.aws_wire import event, exception, frame, sigv4_problems
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CLAUDE_PATH = "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
WEATHER = ToolSpec("weather", "Weather for a place", {"type": "object", "properties": {"city": {"type": "string"}}})
KEY, SECRET, TOKEN = "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-token-1"
EVENT_STREAM = "application/vnd.amazon.eventstream"


@pytest.fixture(autouse=True)
def aws_keys(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    forget_sessions()
    yield
    forget_sessions()


def bedrock(server: ScriptedServer, model_id: str = CLAUDE, **fields: Any) -> Any:
    return make_model(server.url, id=model_id, api="bedrock-converse-stream", provider="amazon-bedrock",
                      reasoning=True, input=["text", "image"], **fields)


def reply(*frames: bytes) -> Reply:
    return Reply(raw_frames=list(frames), content_type=EVENT_STREAM, headers={"x-amzn-requestid": "req-1"})


def usage(input_tokens: int, output: int, **extra: int) -> bytes:
    return event("metadata", {"usage": {"inputTokens": input_tokens, "outputTokens": output, **extra,
                                        "totalTokens": input_tokens + output + sum(extra.values())},
                              "metrics": {"latencyMs": 300}})


def delta(index: int, body: dict[str, Any]) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": index, "delta": body})


def stop(index: int) -> bytes:
    return event("contentBlockStop", {"contentBlockIndex": index})


def tool_start(index: int, tool_id: str, name: str = "weather", **extra: Any) -> bytes:
    return event("contentBlockStart", {"contentBlockIndex": index,
                                       "start": {"toolUse": {"toolUseId": tool_id, "name": name, **extra}}})


START = event("messageStart", {"role": "assistant"})


async def run(server: ScriptedServer, model: Any, frames: list[bytes], history: list[Any] | None = None,
              **fields: Any) -> Outcome:
    server.replies.append(reply(*frames))
    request = make_request(model, history, tools=[WEATHER], thinking_level="low", **{"api_key": None, **fields})
    outcome = await assemble(BedrockConverseProvider(), request)
    if outcome.error is None:
        outcome.assert_deltas_rebuild_message()
    return outcome


async def test_signed_reasoning_and_parallel_tools_then_the_next_request(server: ScriptedServer) -> None:
    model = bedrock(server)
    outcome = await run(server, model, [
        START,
        delta(0, {"reasoningContent": {"text": "Two cities: "}}),
        delta(0, {"reasoningContent": {"text": "call twice."}}),
        delta(0, {"reasoningContent": {"signature": "ErcBCkgIBhAB"}}),
        stop(0),
        delta(1, {"text": "Checking both."}), stop(1),
        tool_start(2, "tooluse_a"), delta(2, {"toolUse": {"input": '{"city":'}}), delta(2, {"toolUse": {"input": '"Rome"}'}}),
        stop(2),
        tool_start(3, "tooluse_b"), delta(3, {"toolUse": {"input": '{"city":"Oslo"}'}}), stop(3),
        event("messageStop", {"stopReason": "tool_use"}),
        usage(397, 130, cacheReadInputTokens=0, cacheWriteInputTokens=0),
    ])
    assert outcome.error is None
    message = outcome.message
    assert message.stop_reason == "toolUse" and message.response_id == "req-1"
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Two cities: call twice."
    assert thinking.thinking_signature == "ErcBCkgIBhAB" and not thinking.redacted
    assert [(c.id, c.arguments) for c in message.tool_calls()] == [("tooluse_a", {"city": "Rome"}),
                                                                   ("tooluse_b", {"city": "Oslo"})]
    assert (message.usage.input, message.usage.output) == (397, 130)

    sent = server.requests[0]
    assert sent.path == CLAUDE_PATH
    assert sigv4_problems(sent, KEY, SECRET, "us-west-2", session_token=TOKEN) == []
    assert sigv4_problems(sent, KEY, "not-the-secret", "us-west-2") == ["the signature does not match the request"]
    body = sent.body
    assert body["system"] == [{"text": "You are terse."}, {"cachePoint": {"type": "default"}}]
    assert body["messages"] == [{"role": "user", "content": [{"text": "hi"}, {"cachePoint": {"type": "default"}}]}]
    assert body["toolConfig"]["tools"] == [
        {"toolSpec": {"name": "weather", "description": "Weather for a place", "inputSchema": {"json": WEATHER.parameters}}},
        {"cachePoint": {"type": "default"}},
    ]
    assert body["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": 2048}}
    assert body["inferenceConfig"]["maxTokens"] > 2048

    history = [UserMessage(content="weather?"), message,
               ToolResultMessage(tool_call_id="tooluse_a", tool_name="weather", content=[TextContent(text="30 C")]),
               ToolResultMessage(tool_call_id="tooluse_b", tool_name="weather", content=[TextContent(text="boom")],
                                 is_error=True)]
    follow = await run(server, model, [START, delta(0, {"text": "Rome is warmer."}), stop(0),
                                       event("messageStop", {"stopReason": "end_turn"})], history)
    assert follow.error is None and follow.message.text() == "Rome is warmer."
    second = server.requests[-1]
    assert sigv4_problems(second, KEY, SECRET, "us-west-2", session_token=TOKEN) == []
    messages = second.body["messages"]
    assert messages[1] == {"role": "assistant", "content": [
        {"reasoningContent": {"reasoningText": {"text": "Two cities: call twice.", "signature": "ErcBCkgIBhAB"}}},
        {"text": "Checking both."},
        {"toolUse": {"toolUseId": "tooluse_a", "name": "weather", "input": {"city": "Rome"}}},
        {"toolUse": {"toolUseId": "tooluse_b", "name": "weather", "input": {"city": "Oslo"}}},
    ]}
    assert messages[2] == {"role": "user", "content": [
        {"toolResult": {"toolUseId": "tooluse_a", "content": [{"text": "30 C"}], "status": "success"}},
        {"toolResult": {"toolUseId": "tooluse_b", "content": [{"text": "boom"}], "status": "error"}},
        {"cachePoint": {"type": "default"}},
    ]}
    assert len(messages) == 3


async def test_a_bedrock_api_key_goes_as_a_bearer_token(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    outcome = await run(server, bedrock(server, "openai.gpt-oss-120b-1:0"), [
        START, delta(0, {"text": ""}), stop(0), delta(1, {"reasoningContent": {"text": "Greet back."}}), stop(1),
        delta(2, {"text": "Hello!"}), stop(2), event("messageStop", {"stopReason": "end_turn"}), usage(70, 43),
    ], api_key="ABSKbedrock-api-key")
    assert outcome.error is None
    assert [type(b) for b in outcome.message.content] == [ThinkingContent, TextContent]  # the empty block is dropped
    sent = server.requests[0]
    assert sent.headers["authorization"] == "Bearer ABSKbedrock-api-key"
    assert "x-amz-date" not in sent.headers
    assert sent.path == "/model/openai.gpt-oss-120b-1%3A0/converse-stream"
    assert "cachePoint" not in str(sent.body) and "additionalModelRequestFields" not in sent.body


async def test_redacted_reasoning_is_kept_and_replayed_first(server: ScriptedServer) -> None:
    model = bedrock(server)
    outcome = await run(server, model, [
        START, delta(0, {"reasoningContent": {"redactedContent": "RXRrRUNr"}}), stop(0),
        delta(1, {"text": "I can't say."}), stop(1), event("messageStop", {"stopReason": "end_turn"}),
    ])
    thinking = outcome.message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.redacted and thinking.thinking_signature == "RXRrRUNr"
    moved = outcome.message.model_copy(deep=True)
    moved.content = [moved.content[1], moved.content[0]]  # even stored after the text, it goes first
    await run(server, model, [START, event("messageStop", {"stopReason": "end_turn"})],
              [UserMessage(content="x"), moved, UserMessage(content="y")])
    assert server.requests[-1].body["messages"][1]["content"] == [
        {"reasoningContent": {"redactedContent": "RXRrRUNr"}}, {"text": "I can't say."}]


async def test_server_tool_blocks_are_kept_and_sent_back_in_place(server: ScriptedServer) -> None:
    model = bedrock(server, "us.amazon.nova-2-lite-v1:0")
    result_start = event("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolResult": {
        "status": "success", "toolUseId": "tooluse_srv", "type": "nova_code_interpreter_result"}}})
    outcome = await run(server, model, [
        START,
        tool_start(0, "tooluse_srv", "nova_code_interpreter", type="server_tool_use"),
        delta(0, {"toolUse": {"input": '{"snippet":"1234 * 5678"}'}}), stop(0),
        result_start, delta(1, {"toolResult": [{"json": {"stdOut": "7006652", "exitCode": 0}}]}), stop(1),
        delta(2, {"text": "7006652"}), stop(2),
        event("messageStop", {"stopReason": "end_turn"}), usage(1002, 59),
    ])
    message = outcome.message
    assert message.text() == "7006652" and message.tool_calls() == []
    kept = [b.data for b in message.provider_blocks or []]
    assert kept == [
        {"toolUse": {"toolUseId": "tooluse_srv", "name": "nova_code_interpreter", "type": "server_tool_use",
                     "input": {"snippet": "1234 * 5678"}}},
        {"toolResult": {"status": "success", "toolUseId": "tooluse_srv", "type": "nova_code_interpreter_result",
                        "content": [{"json": {"stdOut": "7006652", "exitCode": 0}}]}},
    ]
    await run(server, model, [START, event("messageStop", {"stopReason": "end_turn"})],
              [UserMessage(content="1234*5678?"), message, UserMessage(content="thanks")])
    assert server.requests[-1].body["messages"][1]["content"] == [*kept, {"text": "7006652"}]


async def test_cache_reads_and_writes_are_apart_from_input(server: ScriptedServer) -> None:
    outcome = await run(server, bedrock(server), [
        START, delta(0, {"text": "Both documents."}), stop(0), event("messageStop", {"stopReason": "end_turn"}),
        usage(3, 121, cacheReadInputTokens=1712, cacheWriteInputTokens=236),
    ])
    used = outcome.message.usage
    assert (used.input, used.output, used.cache_read, used.cache_write, used.total_tokens) == (3, 121, 1712, 236, 2072)


async def test_max_tokens_is_a_length_stop(server: ScriptedServer) -> None:
    outcome = await run(server, bedrock(server), [
        START, delta(0, {"text": "The capital of France is"}), stop(0), event("messageStop", {"stopReason": "max_tokens"}),
    ])
    assert outcome.error is None and outcome.message.stop_reason == "length"


async def test_a_guardrail_is_an_error_stop(server: ScriptedServer) -> None:
    outcome = await run(server, bedrock(server), [START, event("messageStop", {"stopReason": "guardrail_intervened"})])
    assert outcome.error is not None and "guardrail" in outcome.error.message and outcome.error.kind == "fatal"


async def test_an_exception_frame_ends_the_turn_with_its_message(server: ScriptedServer) -> None:
    outcome = await run(server, bedrock(server), [
        START, delta(0, {"text": "Hal"}), exception("throttlingException", "Too many tokens, please wait."),
    ])
    assert outcome.error is not None and outcome.error.kind == "transient" and outcome.error.status == 429
    assert outcome.error.message == "ThrottlingException: Too many tokens, please wait."


async def test_an_http_400_carries_the_servers_message(server: ScriptedServer) -> None:
    server.replies.append(Reply(status=400, body={"message": "The provided model identifier is invalid."},
                                headers={"x-amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}))
    outcome = await assemble(BedrockConverseProvider(), make_request(bedrock(server, "us.does-not-exist-v1:0"), api_key=None))
    assert outcome.error is not None and outcome.error.kind == "fatal" and outcome.error.status == 400
    assert outcome.error.message == "400 ValidationException: The provided model identifier is invalid."


async def test_a_stream_without_message_stop_is_an_error(server: ScriptedServer) -> None:
    outcome = await run(server, bedrock(server), [START, delta(0, {"text": "Half"})])
    assert outcome.error is not None and outcome.error.kind == "transient" and "messageStop" in outcome.error.message


async def test_a_corrupt_frame_is_a_broken_stream(server: ScriptedServer) -> None:
    good = delta(0, {"text": "Hi"})
    broken = good[:-1] + bytes([good[-1] ^ 0xFF])  # the message checksum no longer matches
    outcome = await run(server, bedrock(server), [START, broken])
    assert outcome.error is not None and outcome.error.kind == "transient" and "corrupt" in outcome.error.message


async def test_a_profile_in_the_aws_files_signs_with_its_key_and_region(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION"):
        monkeypatch.delenv(name)
    aws = Path.home() / ".aws"
    aws.mkdir()
    (aws / "credentials").write_text("[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n")
    (aws / "config").write_text("[profile dev]\nregion = eu-central-1\n")
    monkeypatch.setenv("AWS_PROFILE", "dev")
    outcome = await run(server, bedrock(server), [START, event("messageStop", {"stopReason": "end_turn"})])
    assert outcome.error is None
    assert sigv4_problems(server.requests[0], "AKIDPROFILE", "profile-secret", "eu-central-1") == []


async def test_no_credentials_say_what_to_set(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    outcome = await run(server, bedrock(server), [])
    assert outcome.error is not None and outcome.error.kind == "auth" and "AWS_PROFILE" in outcome.error.message
    assert server.requests == []


async def test_a_missing_botocore_names_the_install_command(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "botocore.eventstream", None)
    outcome = await run(server, bedrock(server), [])
    assert outcome.error is not None and "pip install 'atomic-agent[bedrock]'" in outcome.error.message
    assert server.requests == []


def test_the_region_fills_the_catalog_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    from atomic.core.providers.bedrock_converse import endpoint_base

    model = make_model("https://bedrock-runtime.{region}.amazonaws.com", id=CLAUDE, api="bedrock-converse-stream")
    assert endpoint_base(make_request(model)) == ("https://bedrock-runtime.us-west-2.amazonaws.com", "us-west-2")
    pinned = make_model("https://bedrock-runtime.ap-south-1.amazonaws.com", id=CLAUDE, api="bedrock-converse-stream")
    assert endpoint_base(make_request(pinned)) == ("https://bedrock-runtime.ap-south-1.amazonaws.com", "ap-south-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://127.0.0.1:9")
    assert endpoint_base(make_request(make_model("", id=CLAUDE))) == ("http://127.0.0.1:9", "us-west-2")


def test_the_frames_decode_with_the_real_decoder() -> None:
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(frame({":event-type": "messageStart", ":message-type": "event"}, b'{"role":"assistant"}'))
    (message,) = list(buffer)
    assert message.headers[":event-type"] == "messageStart" and message.payload == b'{"role":"assistant"}'


async def test_a_throttled_answer_is_retried_not_compacted(server: ScriptedServer) -> None:
    server.replies.append(Reply(status=429, body={"message": "Too many tokens, please wait before trying again."},
                                headers={"x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                                         "retry-after": "3"}))
    outcome = await assemble(BedrockConverseProvider(), make_request(bedrock(server), api_key=None))
    assert outcome.error is not None and outcome.error.kind == "transient" and outcome.error.retry_after_s == 3
    assert outcome.error.message == "429 ThrottlingException: Too many tokens, please wait before trying again."


async def test_history_with_tool_calls_declares_its_tools_when_none_are_offered(server: ScriptedServer) -> None:
    from atomic.core.messages import AssistantMessage, ToolCall

    model = bedrock(server)
    earlier = AssistantMessage(api="bedrock-converse-stream", provider="amazon-bedrock", model=CLAUDE, stop_reason="toolUse",
                               content=[ToolCall(id="tooluse_x", name="read", arguments={"path": "a"})])
    history = [UserMessage(content="read a"), earlier,
               ToolResultMessage(tool_call_id="tooluse_x", tool_name="read", content=[TextContent(text="A")])]
    server.replies.append(reply(START, event("messageStop", {"stopReason": "end_turn"})))
    outcome = await assemble(BedrockConverseProvider(), make_request(model, history, api_key="k"))
    assert outcome.error is None
    assert server.requests[0].body["toolConfig"] == {"tools": [
        {"toolSpec": {"name": "read", "description": "read", "inputSchema": {"json": {"type": "object"}}}}]}


async def test_an_sso_profile_gets_role_credentials_from_the_sso_portal(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hashlib
    import json

    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    start_url = "https://example.awsapps.com/start"
    aws = Path.home() / ".aws"
    (aws / "sso" / "cache").mkdir(parents=True)
    (aws / "config").write_text(
        f"[profile sso-dev]\nsso_start_url = {start_url}\nsso_region = us-east-1\n"
        "sso_account_id = 123456789012\nsso_role_name = Developer\nregion = us-west-2\n")
    token_file = aws / "sso" / "cache" / f"{hashlib.sha1(start_url.encode()).hexdigest()}.json"
    token_file.write_text(json.dumps({"startUrl": start_url, "region": "us-east-1", "accessToken": "sso-access-token",
                                      "expiresAt": "2099-01-01T00:00:00Z"}))
    monkeypatch.setenv("AWS_PROFILE", "sso-dev")
    monkeypatch.setenv("AWS_ENDPOINT_URL_SSO", server.url)
    # botocore fixes the SSO token cache folder from HOME when it is first imported (an earlier
    # test's HOME); point it at this test's.
    from botocore.credentials import SSOProvider

    monkeypatch.setattr(SSOProvider, "_SSO_TOKEN_CACHE_DIR", str(aws / "sso" / "cache"))
    server.replies.append(Reply(status=200, body={"roleCredentials": {
        "accessKeyId": "ASIASSO", "secretAccessKey": "sso-secret", "sessionToken": "sso-session",
        "expiration": 4070908800000}}))
    outcome = await run(server, bedrock(server), [START, event("messageStop", {"stopReason": "end_turn"})])
    assert outcome.error is None
    portal, converse = server.requests
    assert portal.path.startswith("/federation/credentials?")
    assert "role_name=Developer" in portal.path and portal.headers["x-amz-sso_bearer_token"] == "sso-access-token"
    assert sigv4_problems(converse, "ASIASSO", "sso-secret", "us-west-2", session_token="sso-session") == []


@pytest.mark.parametrize("size", [1, 7, 64])
async def test_frames_split_anywhere_decode_the_same(server: ScriptedServer, size: int) -> None:
    whole = b"".join([
        START, delta(0, {"reasoningContent": {"text": "Think"}}), delta(0, {"reasoningContent": {"signature": "c2ln"}}),
        stop(0), delta(1, {"text": "Olá, "}), delta(1, {"text": "mundo"}), stop(1),
        event("messageStop", {"stopReason": "end_turn"}), usage(5, 3),
    ])
    pieces = [whole[i:i + size] for i in range(0, len(whole), size)]
    outcome = await run(server, bedrock(server), pieces)
    assert outcome.error is None and outcome.message.text() == "Olá, mundo"
    thinking = outcome.message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking_signature == "c2ln"
    assert outcome.message.usage.output == 3
