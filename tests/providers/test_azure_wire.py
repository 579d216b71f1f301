"""Azure OpenAI (`azure-openai-responses`, `azure-openai-completions`) against a local server.

Hand-written replies in Azure's shapes: a Chat Completions stream that opens with the prompt filter
results (`choices: []`, empty id) and carries `content_filter_results` on each choice, a reply the
filter cut, an HTTP 400 from the filter; a Responses stream with encrypted reasoning replayed under
`store: false`. Each addressing form (resource URL, `/openai/v1`, the deployments form with
`api-version`) and both credentials (`api-key`, Entra ID token) are checked on what the server got.
"""

from __future__ import annotations

from typing import Any

import pytest

from atomic.core.messages import TextContent, ThinkingContent, ToolResultMessage, UserMessage
from atomic.core.providers.azure_openai import azure_completions_provider, azure_responses_provider
from atomic.core.providers.base import ToolSpec
from tests.providers.conftest import make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.wire_helpers import Outcome, assemble

WEATHER = ToolSpec("weather", "Weather for a place", {"type": "object", "properties": {"city": {"type": "string"}}})
SAFE = {"filtered": False, "severity": "safe"}
PROMPT_FILTER = (None, {"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": [
    {"prompt_index": 0, "content_filter_results": {"hate": SAFE, "jailbreak": {"detected": False, "filtered": False},
                                                    "self_harm": SAFE, "sexual": SAFE, "violence": SAFE}}]})
DONE = (None, "[DONE]")


@pytest.fixture(autouse=True)
def no_azure_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_OPENAI_BASE_URL", "AZURE_OPENAI_RESOURCE_NAME", "AZURE_OPENAI_API_VERSION",
                 "AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "AZURE_OPENAI_AD_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def chunk(delta: dict[str, Any] | None, finish: str | None = None, filters: dict[str, Any] | None = None,
          **extra: Any) -> tuple[None, dict[str, Any]]:
    choice = {"content_filter_results": filters or {}, "delta": delta or {}, "finish_reason": finish, "index": 0}
    return (None, {"choices": [choice], "id": "chatcmpl-9", "model": "gpt-5-mini-2025-08-07",
                   "object": "chat.completion.chunk", **extra})


def usage_chunk() -> tuple[None, dict[str, Any]]:
    return (None, {"choices": [], "id": "chatcmpl-9", "object": "chat.completion.chunk", "usage": {
        "prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
        "prompt_tokens_details": {"cached_tokens": 100}}})


def completions_model(base: str, **fields: Any) -> Any:
    return make_model(base, id="gpt-5-mini", api="azure-openai-completions", provider="azure-openai-responses", **fields)


async def complete(model: Any, history: list[Any] | None = None, **fields: Any) -> Outcome:
    return await assemble(azure_completions_provider(), make_request(model, history, tools=[WEATHER], **fields))


async def test_chat_tool_turn_after_the_prompt_filter_chunk_then_the_next_request(server: ScriptedServer) -> None:
    model = completions_model(f"{server.url}/openai/v1")
    call = {"tool_calls": [{"index": 0, "id": "call_ylSv", "type": "function",
                            "function": {"name": "weather", "arguments": ""}}]}
    server.replies.append(Reply(events=[
        PROMPT_FILTER,
        chunk({"content": "", "refusal": None, "role": "assistant"}),
        chunk(call),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Florence"}'}}]}),
        chunk({}, "tool_calls"), usage_chunk(), DONE,
    ]))
    outcome = await complete(model)
    assert outcome.error is None
    message = outcome.message
    assert message.stop_reason == "toolUse" and message.response_id == "chatcmpl-9"
    assert [(c.id, c.arguments) for c in message.tool_calls()] == [("call_ylSv", {"city": "Florence"})]
    assert (message.usage.input, message.usage.cache_read, message.usage.output) == (20, 100, 30)

    sent = server.requests[0]
    assert sent.path == "/openai/v1/chat/completions"
    assert sent.headers["api-key"] == "sk-test-secret-key" and "authorization" not in sent.headers
    assert sent.body["model"] == "gpt-5-mini" and sent.body["messages"][0]["role"] == "system"

    history = [UserMessage(content="weather?"), message,
               ToolResultMessage(tool_call_id="call_ylSv", tool_name="weather", content=[TextContent(text="40 C")])]
    server.replies.append(Reply(events=[PROMPT_FILTER, chunk({"content": "Hot."}), chunk({}, "stop"), DONE]))
    follow = await complete(model, history)
    assert follow.message.text() == "Hot."
    messages = server.requests[-1].body["messages"]
    assert messages[2]["tool_calls"][0]["id"] == "call_ylSv"
    assert messages[3] == {"role": "tool", "tool_call_id": "call_ylSv", "content": "40 C"}


async def test_a_reply_the_content_filter_cut_is_an_error_stop(server: ScriptedServer) -> None:
    server.replies.append(Reply(events=[
        PROMPT_FILTER,
        chunk({"content": "Here is how"}),
        chunk({}, "content_filter", filters={"violence": {"filtered": True, "severity": "high"}, "hate": SAFE}),
        DONE,
    ]))
    outcome = await complete(completions_model(f"{server.url}/openai/v1"))
    assert outcome.error is not None and outcome.error.kind == "fatal"
    assert outcome.message.stop_reason == "error"
    assert "content filter" in outcome.error.message and "violence" in outcome.error.message
    assert "hate" not in outcome.error.message


async def test_a_prompt_the_filter_blocked_carries_azures_message(server: ScriptedServer) -> None:
    server.replies.append(Reply(status=400, body={"error": {
        "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        "type": None, "param": "prompt", "code": "content_filter", "status": 400,
        "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {"violence": {"filtered": True}}}}}))
    outcome = await complete(completions_model(f"{server.url}/openai/v1"))
    assert outcome.error is not None and outcome.error.kind == "fatal" and outcome.error.status == 400
    assert outcome.error.message.startswith("400 content_filter: The response was filtered")


@pytest.mark.parametrize(("base", "version", "path"), [
    ("", None, "/openai/v1/chat/completions"),
    ("/openai/v1?api-version=preview", None, "/openai/v1/chat/completions?api-version=preview"),
    ("/openai", None, "/openai/deployments/my-mini/chat/completions?api-version=2025-04-01-preview"),
    ("/openai", "2024-10-21", "/openai/deployments/my-mini/chat/completions?api-version=2024-10-21"),
    ("/openai/deployments/pinned", None, "/openai/deployments/pinned/chat/completions?api-version=2025-04-01-preview"),
])
async def test_addressing_forms(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch, base: str,
                                version: str | None, path: str) -> None:
    monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "gpt-4.1=big,gpt-5-mini=my-mini")
    if version:
        monkeypatch.setenv("AZURE_OPENAI_API_VERSION", version)
    server.replies.append(Reply(events=[chunk({"content": "ok"}), chunk({}, "stop"), DONE]))
    outcome = await complete(completions_model(server.url + base))
    assert outcome.error is None
    assert server.requests[0].path == path
    assert server.requests[0].body["model"] == "my-mini"


async def test_the_base_url_from_the_environment_and_an_entra_token(server: ScriptedServer,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_BASE_URL", f"{server.url}/openai/v1")
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "eyJ-entra-token")
    server.replies.append(Reply(events=[chunk({"content": "ok"}), chunk({}, "stop"), DONE]))
    outcome = await complete(completions_model(""), api_key="eyJ-entra-token")
    assert outcome.error is None
    headers = server.requests[0].headers
    assert headers["authorization"] == "Bearer eyJ-entra-token" and "api-key" not in headers


async def test_without_an_address_the_error_says_what_to_set() -> None:
    outcome = await complete(completions_model(""))
    assert outcome.error is not None and "AZURE_OPENAI_BASE_URL" in outcome.error.message


# ----------------------------------------------------------------------------- responses


def e(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return (kind, {"type": kind, **fields})


def responses_turn(items: list[Any]) -> list[Any]:
    response = {"id": "resp_az", "object": "response", "status": "in_progress", "output": []}
    usage = {"input_tokens": 80, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 40, "total_tokens": 120}
    return [e("response.created", response=response), *items,
            e("response.completed", response={"id": "resp_az", "status": "completed", "usage": usage})]


REASONING = {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Need the weather."}],
             "encrypted_content": "gAAAAB-encrypted"}
CALL = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_w",
        "name": "weather", "arguments": '{"city":"Florence"}'}


async def test_responses_tool_turn_replays_encrypted_reasoning_under_store_false(server: ScriptedServer) -> None:
    model = make_model(f"{server.url}/openai/v1", id="gpt-5-mini", api="azure-openai-responses",
                       provider="azure-openai-responses", reasoning=True)
    server.replies.append(Reply(events=responses_turn([
        e("response.output_item.added", output_index=0, item={"id": "rs_1", "type": "reasoning", "summary": []}),
        e("response.reasoning_summary_part.added", item_id="rs_1", output_index=0, summary_index=0),
        e("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0, summary_index=0, delta="Need the weather."),
        e("response.output_item.done", output_index=0, item=REASONING),
        e("response.output_item.added", output_index=1, item={**CALL, "status": "in_progress", "arguments": ""}),
        e("response.function_call_arguments.delta", item_id="fc_1", output_index=1, delta='{"city":"Florence"}'),
        e("response.output_item.done", output_index=1, item=CALL),
    ])))
    request = make_request(model, tools=[WEATHER], thinking_level="high")
    outcome = await assemble(azure_responses_provider(), request)
    assert outcome.error is None
    message = outcome.message
    assert message.stop_reason == "toolUse"
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Need the weather."
    first = server.requests[0]
    assert first.path == "/openai/v1/responses" and first.headers["api-key"] == "sk-test-secret-key"
    assert first.body["store"] is False and first.body["include"] == ["reasoning.encrypted_content"]

    history = [UserMessage(content="weather?"), message,
               ToolResultMessage(tool_call_id=message.tool_calls()[0].id, tool_name="weather",
                                 content=[TextContent(text="40 C")])]
    server.replies.append(Reply(events=responses_turn([])))
    await assemble(azure_responses_provider(), make_request(model, history, tools=[WEATHER], thinking_level="high"))
    items = server.requests[-1].body["input"]
    assert items[1] == {"type": "reasoning", "summary": REASONING["summary"], "id": "rs_1",
                        "encrypted_content": "gAAAAB-encrypted"}
    assert items[2] == {"type": "function_call", "call_id": "call_w", "name": "weather",
                        "arguments": '{"city": "Florence"}', "id": "fc_1"}
    assert items[3] == {"type": "function_call_output", "call_id": "call_w", "output": "40 C"}


async def test_responses_deployments_form_takes_an_api_version(server: ScriptedServer) -> None:
    model = make_model(f"{server.url}/openai", id="gpt-5", api="azure-openai-responses", provider="azure-openai-responses")
    server.replies.append(Reply(events=responses_turn([])))
    outcome = await assemble(azure_responses_provider(), make_request(model))
    assert outcome.error is None
    assert server.requests[0].path == "/openai/responses?api-version=2025-04-01-preview"


async def test_a_responses_reply_the_filter_cut_is_an_error_stop(server: ScriptedServer) -> None:
    model = make_model(f"{server.url}/openai/v1", id="gpt-5", api="azure-openai-responses", provider="azure-openai-responses")
    response = {"id": "resp_az", "object": "response", "status": "in_progress", "output": []}
    server.replies.append(Reply(events=[
        e("response.created", response=response),
        e("response.output_item.added", output_index=0, item={"id": "msg_1", "type": "message", "content": []}),
        e("response.output_text.delta", item_id="msg_1", output_index=0, delta="Here is"),
        e("response.incomplete", response={"id": "resp_az", "status": "incomplete",
                                           "incomplete_details": {"reason": "content_filter"}}),
    ]))
    outcome = await assemble(azure_responses_provider(), make_request(model))
    assert outcome.error is not None and outcome.error.kind == "fatal" and outcome.message.stop_reason == "error"
    assert "content filter" in outcome.error.message
