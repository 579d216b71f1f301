"""What the `openai` SDK used to do for the OpenAI providers, now done over plain HTTP: the URL, the
headers, error bodies, Retry-After, and that no SDK is imported on a turn. The official SDK is run
against the same local server to check both sides put the same request on the wire."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

from atomic.core.providers.base import ProviderError
from atomic.core.providers.openai_completions import OpenAICompletionsProvider, build_body
from atomic.core.providers.openai_http import endpoint
from atomic.core.providers.openai_responses import OpenAIResponsesProvider
from tests.providers.conftest import collect, make_model, make_request
from tests.providers.sse_server import Reply, ScriptedServer
from tests.providers.test_connection_reuse import completions_reply, responses_reply, texts


@pytest.fixture(autouse=True)
def no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def completions_model(url: str, **overrides: Any) -> Any:
    return make_model(url, api="openai-completions", **overrides)


# ----------------------------------------------------------------------------- URL and headers


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://api.example.com/v1", "https://api.example.com/v1/chat/completions"),
        ("https://api.example.com/v1/", "https://api.example.com/v1/chat/completions"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"),
        ("https://host/openai/v1?api-version=preview", "https://host/openai/v1/chat/completions?api-version=preview"),
    ],
)
def test_the_api_path_is_appended_to_the_base_url(base: str, url: str) -> None:
    assert endpoint(make_request(completions_model(base)), "chat/completions")[0] == url


def test_base_url_falls_back_to_the_environment_then_to_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    request = make_request(completions_model(""))
    assert endpoint(request, "responses")[0] == "https://api.openai.com/v1/responses"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://proxy.local/v1/")
    assert endpoint(request, "responses")[0] == "http://proxy.local/v1/responses"


def test_headers_bearer_key_environment_and_model_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Gateway: blue\nnot a header\nX-Team:  core ")
    request = make_request(completions_model("http://x/v1"), headers={"X-Gateway": "green", "X-Extra": "1"})
    _, headers = endpoint(request, "chat/completions")
    assert headers == {
        "authorization": "Bearer sk-test-secret-key",
        "content-type": "application/json",
        "accept": "application/json",
        "openai-organization": "org-1",
        "openai-project": "proj-1",
        "x-gateway": "green",  # the model's header wins over the environment's
        "x-team": "core",
        "x-extra": "1",
    }


def test_a_model_authorization_header_replaces_the_bearer_key() -> None:
    request = make_request(completions_model("http://x/v1"), headers={"Authorization": "Token abc"})
    _, headers = endpoint(request, "chat/completions")
    assert [v for k, v in headers.items() if k.lower() == "authorization"] == ["Token abc"]


async def test_a_local_server_without_a_key_gets_a_placeholder_bearer(server: ScriptedServer) -> None:
    server.replies.append(completions_reply("hi"))
    await collect(OpenAICompletionsProvider(), make_request(completions_model(f"{server.url}/v1"), api_key=None))
    assert server.requests[0].headers["authorization"] == "Bearer no-key"


async def test_environment_base_url_reaches_the_server(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/proxy/v1")
    server.replies.append(responses_reply("via env"))
    model = make_model("", api="openai-responses")
    assert texts(await collect(OpenAIResponsesProvider(), make_request(model))) == "via env"
    assert server.requests[0].path == "/proxy/v1/responses"


# ----------------------------------------------------------------------------- errors


async def failed(server: ScriptedServer, reply: Reply) -> ProviderError:
    server.replies.append(reply)
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(f"{server.url}/v1")))
    return caught.value


async def test_an_error_object_becomes_code_and_message(server: ScriptedServer) -> None:
    body = {"error": {"message": "Invalid 'messages': empty.", "type": "invalid_request_error",
                      "code": "invalid_value", "param": "messages"}}
    error = await failed(server, Reply(status=400, body=body))
    assert (error.status, error.kind, error.message) == (400, "fatal", "400 invalid_value: Invalid 'messages': empty.")


async def test_a_top_level_error_body_and_an_html_body_are_shown_as_sent(server: ScriptedServer) -> None:
    error = await failed(server, Reply(status=422, body={"message": "model not loaded", "code": "no_model"}))
    assert error.message == "422 no_model: model not loaded"
    error = await failed(server, Reply(status=502, body="<html><body>Bad Gateway</body></html>"))
    assert (error.kind, error.message) == ("transient", "502 <html><body>Bad Gateway</body></html>")


async def test_an_overflow_code_counts_even_when_the_message_does_not_say_it(server: ScriptedServer) -> None:
    body = {"error": {"message": "Request rejected.", "code": "context_length_exceeded"}}
    error = await failed(server, Reply(status=400, body=body))
    assert error.kind == "overflow" and error.message == "400 context_length_exceeded: Request rejected."


async def test_retry_after_seconds_and_the_key_never_shown(server: ScriptedServer) -> None:
    body = {"error": {"message": "Slow down, sk-test-secret-key", "code": "rate_limit_exceeded"}}
    error = await failed(server, Reply(status=429, body=body, headers={"retry-after": "7"}))
    assert (error.kind, error.retry_after_s) == ("transient", 7.0)
    assert "sk-test-secret-key" not in error.message and "***" in error.message


async def test_an_error_leaves_the_connection_usable(server: ScriptedServer) -> None:
    await failed(server, Reply(status=500, body={"error": {"message": "boom"}}))
    server.replies.append(completions_reply("after"))
    model = completions_model(f"{server.url}/v1")
    assert texts(await collect(OpenAICompletionsProvider(), make_request(model))) == "after"


async def test_an_unreachable_server_is_a_transient_connection_error() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderError) as caught:
        await collect(OpenAICompletionsProvider(), make_request(completions_model(f"http://127.0.0.1:{port}/v1")))
    assert caught.value.kind == "transient" and caught.value.message.startswith("Connection error")


# ----------------------------------------------------------------------------- the SDK agrees


async def test_the_sdk_sends_the_same_request(server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Atomic's request and the official SDK's for the same body: same path, body and headers that matter."""
    from openai import AsyncOpenAI

    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    model = completions_model(f"{server.url}/v1", provider="openrouter", reasoning=True)
    request = make_request(model, headers={"X-Title": "atomic"}, thinking_level="high")
    server.replies += [completions_reply("ours"), completions_reply("theirs")]
    assert texts(await collect(OpenAICompletionsProvider(), request)) == "ours"

    body = build_body(request)
    known = {k: body.pop(k) for k in ("model", "messages", "stream", "stream_options", "max_completion_tokens")}
    client = AsyncOpenAI(base_url=model.base_url, api_key=request.api_key, max_retries=0,
                         default_headers={"X-Title": "atomic"})
    try:
        stream = await client.chat.completions.create(**known, extra_body=body)
        chunks = [chunk async for chunk in stream]
    finally:
        await client.close()
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "theirs"

    ours, theirs = server.requests
    assert ours.path == theirs.path == "/v1/chat/completions"
    assert ours.body == theirs.body
    for name in ("authorization", "content-type", "openai-organization", "x-title"):
        assert ours.headers[name] == theirs.headers[name], name


async def test_the_sdk_reads_the_same_error(server: ScriptedServer) -> None:
    import openai

    body = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
    server.replies.append(Reply(status=429, body=body, headers={"retry-after-ms": "250"}))
    client = openai.AsyncOpenAI(base_url=f"{server.url}/v1", api_key="k", max_retries=0)
    try:
        with pytest.raises(openai.RateLimitError) as sdk:
            await client.responses.create(model="m", input="hi", stream=True)
    finally:
        await client.close()
    server.replies.append(Reply(status=429, body=body, headers={"retry-after-ms": "250"}))
    with pytest.raises(ProviderError) as ours:
        await collect(OpenAIResponsesProvider(), make_request(make_model(f"{server.url}/v1", api="openai-responses")))
    assert sdk.value.body == body["error"] and sdk.value.status_code == ours.value.status == 429
    assert ours.value.message == "429 rate_limit_exceeded: Rate limit reached"
    assert ours.value.retry_after_s == 0.25


# ----------------------------------------------------------------------------- no SDK on a turn


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
def test_warm_up_and_a_streamed_turn_load_no_sdk(server: ScriptedServer, api: str) -> None:
    server.replies.append(completions_reply("hi") if api == "openai-completions" else responses_reply("hi"))
    code = textwrap.dedent(f"""
        import asyncio, sys
        from atomic.core.messages import UserMessage
        from atomic.core.model_types import Model
        from atomic.core.providers.base import StreamRequest
        from atomic.core.providers.registry import APIS, get_provider

        APIS[{api!r}].warm_up()
        model = Model(id="m", api={api!r}, provider="t", base_url={server.url + "/v1"!r})
        request = StreamRequest(model=model, system_prompt="", messages=[UserMessage(content="hi")], api_key="k")

        async def main():
            return [type(e).__name__ async for e in get_provider({api!r}).stream(request)]

        kinds = asyncio.run(main())
        print(kinds[-1], sorted(m for m in sys.modules if m.split(".")[0] in ("openai", "anthropic")))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Done []"
