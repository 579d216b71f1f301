"""Vertex AI (`google-vertex`): Gemini models, and Anthropic's Claude models, on Google Cloud.

Address: the model's base URL (`https://{location}-aiplatform.googleapis.com/v1`, `{location}`
filled in; `aiplatform.googleapis.com` for the `global` location), then
- Gemini: `<base>/projects/<p>/locations/<l>/publishers/google/models/<model>:streamGenerateContent?alt=sse`,
  the body and stream of Google's Gemini API (`google_request.py`, `google_stream.py`);
- Claude (`claude-…` ids): `<base>/projects/<p>/locations/<l>/publishers/anthropic/models/<model>:streamRawPredict`,
  the Messages body without `model` and with Vertex's `anthropic_version`, read as Anthropic's stream.

Credentials: an API key (`GOOGLE_CLOUD_API_KEY` or the models.json `apiKey`) selects Vertex's
express mode: the key in `x-goog-api-key`, no project in the path, the global endpoint. Without a
key, Application Default Credentials through google-auth (`vertex_auth.py`, the `vertex` extra)
give a bearer token; the project comes from `GOOGLE_CLOUD_PROJECT` / `GCLOUD_PROJECT` or the
credentials, the location from `GOOGLE_CLOUD_LOCATION` (default `global`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from atomic.core.models.cloud_auth import vertex_project
from atomic.core.providers import http
from atomic.core.providers.anthropic_messages import http_error as anthropic_http_error
from atomic.core.providers.anthropic_messages import stream_messages
from atomic.core.providers.anthropic_request import build_params
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.google_generative import http_error as google_http_error
from atomic.core.providers.google_generative import stream_gemini

DEFAULT_LOCATION = "global"
VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16"


def location() -> str:
    return os.environ.get("GOOGLE_CLOUD_LOCATION", "").strip() or DEFAULT_LOCATION


def host_base(location_name: str) -> str:
    if location_name == "global":
        return "https://aiplatform.googleapis.com/v1"
    return f"https://{location_name}-aiplatform.googleapis.com/v1"


def base_url(request: StreamRequest, location_name: str, express: bool) -> str:
    base = request.model.base_url
    if not base or (express and "{location}" in base):
        # Express mode lives on the global endpoint only.
        return host_base("global" if express else location_name)
    if "{location}" in base and location_name == "global":
        return host_base("global")
    return base.replace("{location}", location_name)


def is_claude(model_id: str) -> bool:
    return model_id.lower().startswith("claude")


def model_path(model_id: str, project: str | None, location_name: str) -> str:
    publisher = "anthropic" if is_claude(model_id) else "google"
    method = "streamRawPredict" if is_claude(model_id) else "streamGenerateContent?alt=sse"
    scope = f"projects/{quote(project, safe='')}/locations/{quote(location_name, safe='')}/" if project else ""
    return f"{scope}publishers/{publisher}/models/{quote(model_id, safe='@.-_')}:{method}"


def vertex_error(status: int, body: bytes, headers: Any, secret: str | None) -> ProviderError:
    """Claude's errors on Vertex come in Anthropic's shape or Google's (auth, quota): word either."""
    _, data = http.read_error_body(body)
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict) and "type" in error:
        return anthropic_http_error(status, body, headers, secret)
    return google_http_error(status, body, headers, secret)


async def _credentials(request: StreamRequest) -> tuple[dict[str, str], str | None]:
    """(auth headers, project) for one request: the express-mode key, or an ADC bearer token."""
    if request.api_key:
        return {"x-goog-api-key": request.api_key}, None
    from atomic.core.providers.vertex_auth import authorized_headers

    # File reads and a token refresh block: off the event loop.
    headers, credentials_project = await asyncio.to_thread(authorized_headers)
    project = vertex_project() or credentials_project
    if not project:
        raise ProviderError(
            "Vertex AI needs a Google Cloud project: set GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION).",
            kind="auth",
        )
    return headers, project


async def _address(request: StreamRequest) -> tuple[str, dict[str, str]]:
    auth, project = await _credentials(request)
    express = project is None
    if express and is_claude(request.model.id):
        raise ProviderError(
            "Claude on Vertex AI needs Application Default Credentials and a project; an express-mode API key "
            "only reaches Google's models. Unset GOOGLE_CLOUD_API_KEY or use a Gemini model.",
            kind="auth",
        )
    where = location()
    url = http.join_url(base_url(request, where, express), model_path(request.model.id, project, where))
    headers = {"content-type": "application/json", "accept": "text/event-stream", **auth}
    return url, http.merge_headers(headers, request.headers)


class GoogleVertexProvider:
    """`Provider` for api "google-vertex"."""

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        if is_claude(request.model.id):
            async def prepare_claude() -> tuple[str, dict[str, str], dict[str, Any]]:
                url, headers = await _address(request)
                body = {k: v for k, v in build_params(request).items() if k != "model"}
                body.update(anthropic_version=VERTEX_ANTHROPIC_VERSION, stream=True)
                return url, headers, body

            return stream_messages(request, prepare_claude, request.api_key, vertex_error)
        return stream_gemini(request, lambda: _address(request), request.api_key)
