"""Amazon Bedrock's Converse stream (`bedrock-converse-stream`): `POST <endpoint>/model/<id>/converse-stream`.

The answer is a binary AWS event stream (`application/vnd.amazon.eventstream`): each frame has
headers (`:message-type`, `:event-type` or `:exception-type`) and a JSON payload. botocore (the
`bedrock` extra) does the three things worth a maintained library here: it decodes and checks the
frames, resolves credentials through the standard AWS chain (environment, `~/.aws` profiles, SSO,
container and instance roles, web identity) and signs the request with SigV4. It is imported in a
worker thread on first use, never at start-up or on the event loop.

- Endpoint: the model's base URL (an endpoint override; plain HTTP allowed), else
  `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, else `https://bedrock-runtime.<region>.amazonaws.com`.
- Region: `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's region, else us-east-1. Model ids may be
  cross-region inference profiles (`us.anthropic.claude-…`) or ARNs: the id is URL-encoded whole.
- Credentials: a Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`, or the models.json `apiKey`) goes as
  `Authorization: Bearer`; otherwise the AWS chain's credentials sign the request.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import quote

from atomic.core.providers import http
from atomic.core.providers.base import ProviderError, ProviderEvent, StreamRequest
from atomic.core.providers.bedrock_request import build_body
from atomic.core.providers.bedrock_stream import RETRYABLE_STATUS, BedrockStream, exception_error
from atomic.core.providers.extras import require
from atomic.core.providers.http_stream import HttpCall, stream_http

DEFAULT_REGION = "us-east-1"
SERVICE = "bedrock"
_REGION_IN_HOST = re.compile(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com")

_session_lock = threading.Lock()
_sessions: dict[tuple[str, str], Any] = {}


def _session() -> Any:
    """One botocore session per profile (its credential provider caches and refreshes)."""
    key = (os.environ.get("AWS_PROFILE", ""), os.environ.get("AWS_ACCESS_KEY_ID", ""))
    with _session_lock:
        session = _sessions.get(key)
        if session is None:
            botocore_session = require("botocore.session", "Amazon Bedrock")
            session = _sessions[key] = botocore_session.Session()
        return session


def forget_sessions() -> None:
    """Drop cached sessions and credentials (tests; a changed profile)."""
    with _session_lock:
        _sessions.clear()


def region_for(base: str) -> str:
    found = _REGION_IN_HOST.search(base)
    if found:
        return found.group(1)
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return str(_session().get_config_variable("region") or DEFAULT_REGION)


def endpoint_base(request: StreamRequest) -> tuple[str, str]:
    """(base URL, signing region); reads the profile's region, so call it off the event loop."""
    base = request.model.base_url or os.environ.get("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "").strip()
    region = region_for(base)
    if not base or "{region}" in base:
        base = (base or "https://bedrock-runtime.{region}.amazonaws.com").replace("{region}", region)
    return base, region


def _sign(url: str, region: str, headers: dict[str, str], body: bytes) -> dict[str, str]:
    """SigV4 headers for the request, with the AWS chain's credentials (blocking: a worker thread)."""
    auth = require("botocore.auth", "Amazon Bedrock")
    awsrequest = require("botocore.awsrequest", "Amazon Bedrock")
    credentials = _session().get_credentials()
    if credentials is None:
        raise ProviderError(
            "Amazon Bedrock found no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE "
            "(run `aws sso login` for an SSO profile) or AWS_BEARER_TOKEN_BEDROCK.",
            kind="auth",
        )
    signed = awsrequest.AWSRequest(method="POST", url=url, data=body, headers=headers)
    auth.SigV4Auth(credentials.get_frozen_credentials(), SERVICE, region).add_auth(signed)
    return {name.lower(): str(value) for name, value in signed.headers.items()}


def _prepare(request: StreamRequest, body: bytes) -> tuple[str, dict[str, str], Any]:
    """URL, headers and the event-stream buffer class (imports botocore: a worker thread)."""
    eventstream = require("botocore.eventstream", "Amazon Bedrock")
    base, region = endpoint_base(request)
    url = http.join_url(base, f"model/{quote(request.model.id, safe='')}/converse-stream")
    headers = {"content-type": "application/json", "accept": "application/vnd.amazon.eventstream"}
    if request.api_key:
        headers["authorization"] = f"Bearer {request.api_key}"
        headers = http.merge_headers(headers, request.headers)
    else:
        # The model's own headers are signed with the rest.
        headers = _sign(url, region, http.merge_headers(headers, request.headers), body)
    return url, headers, eventstream.EventStreamBuffer


def http_error(status: int, body: bytes, headers: Any, secret: str | None) -> ProviderError:
    """`400 ValidationException: <message>` (the type from `x-amzn-ErrorType` or the body)."""
    raw, data = http.read_error_body(body)
    kind = str(headers.get("x-amzn-errortype") or "").partition(":")[0] if headers is not None else ""
    message = None
    if isinstance(data, dict):
        kind = kind or str(data.get("__type") or "").rpartition("#")[2]
        message = data.get("message") or data.get("Message")
    text = f"{kind}: {message}" if kind and message else (message or raw or "(no body)")
    # Throttling reads "Too many tokens, please wait": judged by its type, it is not an overflow.
    kind_text = kind if status in RETRYABLE_STATUS else None
    return http.status_error(status, f"{status} {text}", headers, secret, kind_text)


class BedrockConverseProvider:
    """`Provider` for api "bedrock-converse-stream"."""

    def stream(self, request: StreamRequest) -> AsyncIterator[ProviderEvent]:
        buffer_classes: list[Any] = []

        async def call() -> HttpCall:
            body = json.dumps(build_body(request)).encode()
            url, headers, buffer_class = await asyncio.to_thread(_prepare, request, body)
            buffer_classes.append(buffer_class)
            return HttpCall(url, headers, body)

        def frames(chunks: AsyncIterator[bytes]) -> AsyncIterator[list[Any]]:
            return _read_frames(buffer_classes[0](), chunks)

        return stream_http(request, call, _FrameState, http_error, request.api_key, frames)


class _FrameState:
    """One response's frames -> provider events."""

    def __init__(self, response: Any) -> None:
        self.state = BedrockStream(response.headers.get("x-amzn-requestid"))

    def feed(self, frame: Any) -> list[ProviderEvent]:
        return _frame_events(self.state, frame)

    def finish(self) -> list[ProviderEvent]:
        return self.state.finish()


async def _read_frames(buffer: Any, chunks: AsyncIterator[bytes]) -> AsyncIterator[list[Any]]:
    """The frames each chunk completes; a corrupt frame (bad checksum or length) is a broken
    stream, worth a retry, raised after the frames before it."""
    async for chunk in chunks:
        buffer.add_data(chunk)
        batch: list[Any] = []
        try:
            for frame in buffer:
                batch.append(frame)
        except Exception as exc:
            if type(exc).__module__ != "botocore.eventstream":
                raise
            yield batch
            raise ProviderError(
                f"Bedrock's event stream was corrupt ({type(exc).__name__}: {exc})", kind="transient"
            ) from None
        yield batch


def _frame_events(state: BedrockStream, frame: Any) -> list[ProviderEvent]:
    headers = frame.headers
    message_type = headers.get(":message-type")
    if message_type in ("exception", "error"):
        kind = headers.get(":exception-type") or headers.get(":error-code") or "BedrockError"
        raise exception_error(str(kind), frame.payload)
    event_type = str(headers.get(":event-type") or "")
    try:
        event = json.loads(frame.payload or b"{}")
    except ValueError:
        raise ProviderError(f"Bedrock sent an event that is not JSON ({event_type}): {frame.payload[:200]!r}",
                            kind="fatal") from None
    if not isinstance(event, dict):
        return []
    try:
        return state.handle(event_type, event)
    except (KeyError, TypeError, ValueError) as exc:
        raise ProviderError(f"Could not decode Bedrock's {event_type} event ({type(exc).__name__}: {exc})",
                            kind="fatal") from None


def warm_up() -> None:
    """Load botocore's signer and decoder in the warm-up thread (nothing when the extra is missing)."""
    try:
        require("botocore.eventstream", "Amazon Bedrock")
        require("botocore.auth", "Amazon Bedrock")
        require("botocore.session", "Amazon Bedrock")
    except ProviderError:
        pass  # the first request says which pip install fixes it
