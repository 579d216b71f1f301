"""Which of the new providers count as configured, and with what: Gemini's two key variables, the
AWS credential chain for Bedrock, ADC or an express-mode key for Vertex AI, Azure's key or Entra
token. A models.json `baseUrl` replaces the address, so a local server stands in for each."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from atomic.core.models.registry import ModelRegistry
from atomic.core.providers.base import StreamRequest
from atomic.core.providers.google_generative import GoogleGenerativeAIProvider
from atomic.core.records import AuthStatus
from tests.providers.sse_server import Reply, ScriptedServer

Make = Callable[..., ModelRegistry]


@pytest.mark.parametrize("variable", ["GEMINI_API_KEY", "GOOGLE_API_KEY"])
def test_either_gemini_variable_configures_google(make_registry: Make, monkeypatch: pytest.MonkeyPatch,
                                                 variable: str) -> None:
    assert not make_registry().is_configured("google")
    monkeypatch.setenv(variable, "g-key")
    registry = make_registry()
    assert registry.auth_status("google") == AuthStatus(configured=True, source="environment", label=variable)
    assert registry.api_key_for("google") == "g-key"


def test_bedrock_takes_the_aws_chain(make_registry: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not make_registry().is_configured("amazon-bedrock")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKID")
    assert not make_registry().is_configured("amazon-bedrock")  # half a key pair is nothing
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    registry = make_registry()
    assert registry.auth_status("amazon-bedrock").label == "AWS_ACCESS_KEY_ID"
    assert registry.api_key_for("amazon-bedrock") is None  # the provider signs with the chain itself


def test_bedrock_profiles_files_and_api_keys(make_registry: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_PROFILE", "work")
    assert make_registry().auth_status("amazon-bedrock").label == "AWS_PROFILE"
    monkeypatch.delenv("AWS_PROFILE")
    aws = Path.home() / ".aws"
    aws.mkdir()
    (aws / "config").write_text("[default]\nregion = us-east-1\n")
    assert make_registry().is_configured("amazon-bedrock")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "ABSK-token")
    registry = make_registry()
    assert registry.auth_status("amazon-bedrock").label == "AWS_BEARER_TOKEN_BEDROCK"
    assert registry.api_key_for("amazon-bedrock") == "ABSK-token"


def test_vertex_takes_an_express_key_or_adc_with_a_project(make_registry: Make, monkeypatch: pytest.MonkeyPatch,
                                                           tmp_path: Path) -> None:
    assert not make_registry().is_configured("google-vertex")
    gcloud = Path.home() / ".config" / "gcloud"
    gcloud.mkdir(parents=True)
    (gcloud / "application_default_credentials.json").write_text("{}")
    assert not make_registry().is_configured("google-vertex")  # user credentials, but no project to bill
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "my-project")
    registry = make_registry()
    assert registry.is_configured("google-vertex") and registry.api_key_for("google-vertex") is None
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "sa.json"))
    assert make_registry().auth_status("google-vertex").label == "GOOGLE_APPLICATION_CREDENTIALS"
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "AQ.key")
    registry = make_registry()
    assert registry.auth_status("google-vertex").label == "GOOGLE_CLOUD_API_KEY"
    assert registry.api_key_for("google-vertex") == "AQ.key"
    assert registry.find("google-vertex", "gemini-2.5-pro").base_url == "https://{location}-aiplatform.googleapis.com/v1"


@pytest.mark.parametrize("variable", ["AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"])
def test_azure_takes_a_key_or_an_entra_token(make_registry: Make, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    monkeypatch.setenv(variable, "az-secret")
    registry = make_registry()
    assert registry.is_configured("azure-openai-responses") and registry.api_key_for("azure-openai-responses") == "az-secret"


def test_a_custom_provider_on_a_cloud_api_uses_the_cloud_chain(make_registry: Make, agent_dir: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"my-bedrock": {
        "baseUrl": "http://127.0.0.1:4566", "api": "bedrock-converse-stream",
        "models": [{"id": "us.amazon.nova-pro-v1:0"}]}}}))
    registry = make_registry()
    assert registry.errors == [] and not registry.is_configured("my-bedrock")
    monkeypatch.setenv("AWS_PROFILE", "localstack")
    assert make_registry().is_configured("my-bedrock")


async def test_a_models_json_base_url_replaces_the_host(make_registry: Make, agent_dir: Path, server: ScriptedServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from atomic.core.messages import UserMessage

    monkeypatch.setenv("GEMINI_API_KEY", "g-key")
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"google": {"baseUrl": f"{server.url}/v1beta"}}}))
    registry = make_registry()
    model = registry.find("google", "gemini-2.5-flash")
    assert model is not None and model.base_url == f"{server.url}/v1beta"
    server.replies.append(Reply(raw_frames=[
        b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}\r\n\r\n']))
    request = StreamRequest(model=model, system_prompt="", messages=[UserMessage(content="hi")],
                            api_key=registry.api_key_for("google"))
    events = [e async for e in GoogleGenerativeAIProvider().stream(request)]
    assert type(events[-1]).__name__ == "Done"
    assert server.requests[0].path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    assert server.requests[0].headers["x-goog-api-key"] == "g-key"


def test_the_no_model_message_names_the_cloud_sign_ins(make_registry: Make) -> None:
    from atomic.core.models.setup_help import no_model_message

    text = no_model_message(make_registry())
    assert "GEMINI_API_KEY" in text and "AWS_PROFILE" in text and "gcloud auth application-default login" in text
