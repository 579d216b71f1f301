"""Azure OpenAI: the Responses and Chat Completions wires at an Azure resource.

The bodies and streams are OpenAI's (`openai_responses.py`, `openai_completions.py`); what differs
is the address, the credential and the content filter:

- Address: the model's base URL, else `AZURE_OPENAI_BASE_URL`, else the resource named by
  `AZURE_OPENAI_RESOURCE_NAME` (`https://<resource>.openai.azure.com/openai/v1`). A bare resource URL
  gets `/openai/v1`. A base ending in `/openai` uses the older deployments form
  (`/openai/deployments/<deployment>/chat/completions`, `/openai/responses`) with an `api-version`
  query; a base ending in `/openai/deployments/<name>` names the deployment itself.
  `AZURE_OPENAI_API_VERSION` sets the version on any form; a base URL's own query is kept.
- Deployment: the body's `model` is the deployment name, the model id unless
  `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` ("model=deployment,other=name") maps it.
- Credential: the key in the `api-key` header, or a Microsoft Entra ID token
  (`AZURE_OPENAI_AD_TOKEN`) as `Authorization: Bearer`.
- Content filter: Chat Completions streams start with a chunk of prompt filter results
  (`choices: []`, empty id). A reply the filter cut (`finish_reason: content_filter`) or a prompt it
  blocked ends the turn as an error naming the categories that were filtered.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote, urlsplit

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, StreamRequest
from atomic.core.providers.completions_stream import CompletionsStream
from atomic.core.providers.http_stream import HttpCall
from atomic.core.providers.openai_completions import OpenAICompletionsProvider
from atomic.core.providers.openai_http import OpenAIEndpoint
from atomic.core.providers.openai_responses import OpenAIResponsesProvider

# The GA version that serves both Chat Completions and Responses in the deployments form.
DEFAULT_API_VERSION = "2025-04-01-preview"


def deployment_name(model_id: str) -> str:
    mapping = os.environ.get("AZURE_OPENAI_DEPLOYMENT_NAME_MAP", "")
    for entry in mapping.split(","):
        name, equals, deployment = entry.partition("=")
        if equals and name.strip() == model_id and deployment.strip():
            return deployment.strip()
    return model_id


def base_url(request: StreamRequest) -> str:
    base = request.model.base_url or os.environ.get("AZURE_OPENAI_BASE_URL", "").strip()
    if not base:
        resource = os.environ.get("AZURE_OPENAI_RESOURCE_NAME", "").strip()
        if not resource:
            raise ProviderError(
                "Azure OpenAI needs its address: set AZURE_OPENAI_BASE_URL (https://<resource>.openai.azure.com/openai/v1)"
                " or AZURE_OPENAI_RESOURCE_NAME, or a baseUrl in models.json.",
                kind="auth",
            )
        base = f"https://{resource}.openai.azure.com/openai/v1"
    return base


def endpoint_url(request: StreamRequest, path: str) -> str:
    """The URL for `path` ("responses" or "chat/completions") at the model's Azure resource."""
    base = base_url(request)
    root, mark, query = base.partition("?")
    root = root.rstrip("/")
    version = os.environ.get("AZURE_OPENAI_API_VERSION", "").strip()
    route = urlsplit(root).path.rstrip("/")
    if route == "":
        root += "/openai/v1"
    elif route.endswith("/openai"):
        version = version or DEFAULT_API_VERSION
        if path == "chat/completions":
            root += f"/deployments/{quote(deployment_name(request.model.id), safe='')}"
    elif "/openai/deployments/" in route:
        version = version or DEFAULT_API_VERSION
    url = f"{root}/{path}"
    params = [query] if query else []
    if version and "api-version=" not in query:
        params.append(f"api-version={quote(version, safe='')}")
    return url + ("?" + "&".join(params) if params else "")


def headers_for(request: StreamRequest) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": "application/json"}
    entra_token = os.environ.get("AZURE_OPENAI_AD_TOKEN", "").strip()
    if entra_token and request.api_key in (None, "", entra_token):
        headers["authorization"] = f"Bearer {entra_token}"
    elif request.api_key:
        headers["api-key"] = request.api_key
    return http.merge_headers(headers, request.headers)


def azure_call(request: StreamRequest, path: str, body: dict[str, Any]) -> HttpCall:
    """The OpenAI body (its `model` the deployment name) posted to the Azure URL."""
    body = {**body, "model": deployment_name(request.model.id)}
    return HttpCall(endpoint_url(request, path), headers_for(request), json.dumps(body).encode())


def azure_secret(request: StreamRequest) -> str | None:
    return request.api_key or os.environ.get("AZURE_OPENAI_AD_TOKEN") or None


AZURE = OpenAIEndpoint(azure_call, azure_secret)


def filtered_categories(results: Any) -> list[str]:
    """The categories of one `content_filter_results` object that the filter acted on."""
    if not isinstance(results, dict):
        return []
    return [
        name
        for name, verdict in results.items()
        if isinstance(verdict, dict) and verdict.get("filtered") is True
    ]


class AzureCompletionsStream(CompletionsStream):
    """Chat Completions chunks plus Azure's filter results, so a filtered reply says what was filtered."""

    def __init__(self) -> None:
        super().__init__()
        self.filtered: list[str] = []

    def handle(self, chunk: dict[str, Any]) -> list[Any]:
        for prompt in chunk.get("prompt_filter_results") or ():
            if isinstance(prompt, dict):
                self._note(filtered_categories(prompt.get("content_filter_results")))
        for choice in chunk.get("choices") or ():
            if isinstance(choice, dict):
                self._note(filtered_categories(choice.get("content_filter_results")))
        return super().handle(chunk)

    def _note(self, categories: list[str]) -> None:
        self.filtered.extend(c for c in categories if c not in self.filtered)

    def finish(self) -> list[Any]:
        if self.finish_reason == "content_filter":
            which = ", ".join(self.filtered) or "unspecified categories"
            raise ProviderError(f"Azure's content filter blocked the reply (content_filter: {which}).", kind="fatal")
        return super().finish()


def azure_responses_provider() -> OpenAIResponsesProvider:
    return OpenAIResponsesProvider(AZURE)


def azure_completions_provider() -> OpenAICompletionsProvider:
    return OpenAICompletionsProvider(AZURE, AzureCompletionsStream)
