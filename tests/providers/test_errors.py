"""Error classification, retry-after parsing and overflow detection."""

from __future__ import annotations

import time
from email.utils import formatdate
from typing import Any

import pytest

from atomic.core.providers.base import ProviderError
from atomic.core.providers.errors import classify_error, is_context_overflow_text, parse_retry_after


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 213462 tokens > 200000 maximum",
        '{"type":"error","error":{"type":"request_too_large"}}',
        "Your input exceeds the context window of this model",
        "This model's maximum context length is 128000 tokens. However, you requested 130000",
        "context_length_exceeded",
        "context length exceeded",
        "Too many tokens in request",
        "token limit exceeded",
        "the request exceeds the available context size, try increasing it",
        "400 (no body)",
    ],
)
def test_overflow_texts(text: str) -> None:
    assert is_context_overflow_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "Rate limit reached for gpt-4 on tokens per min (TPM): Limit 30000, Used 30000",
        "Too many requests: too many tokens per minute",
        "Overloaded",
        "",
    ],
)
def test_not_overflow_texts(text: str) -> None:
    assert not is_context_overflow_text(text)


class FakeResponse:
    def __init__(self, text: str, headers: dict[str, str]) -> None:
        self.text = text
        self.headers = headers


class APIStatusError(Exception):
    """Shaped like the SDKs' status errors (duck-typed by the classifier)."""

    def __init__(self, status: int, text: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status
        self.response = FakeResponse(text, headers or {})
        self.body: Any = None


@pytest.mark.parametrize(
    ("status", "text", "kind"),
    [
        (529, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "transient"),
        (429, '{"error":{"message":"slow down"}}', "transient"),
        (500, "boom", "transient"),
        (502, "bad gateway", "transient"),
        (408, "timeout", "transient"),
        (400, '{"error":{"message":"prompt is too long"}}', "overflow"),
        (413, "request_too_large", "overflow"),
        (401, "invalid key", "auth"),
        (403, "forbidden", "auth"),
        (404, "model not found", "fatal"),
        (400, "invalid tool schema", "fatal"),
    ],
)
def test_status_classification(status: int, text: str, kind: str) -> None:
    error = classify_error(APIStatusError(status, text))
    assert error.kind == kind
    assert error.status == status
    assert error.message == f"{status} {text}"


def test_retry_after_variants() -> None:
    assert parse_retry_after({"retry-after": "12"}) == 12.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "12"}) == 0.25
    date = formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"retry-after": date}) <= 31
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    error = classify_error(APIStatusError(429, "x", {"retry-after": "3"}))
    assert error.retry_after_s == 3.0


def test_api_key_is_scrubbed() -> None:
    error = classify_error(APIStatusError(401, "bad key sk-live-123456"), api_key="sk-live-123456")
    assert "sk-live-123456" not in error.message
    assert "***" in error.message


def test_transport_errors_are_transient() -> None:
    class RemoteProtocolError(Exception):
        pass

    assert classify_error(RemoteProtocolError("peer closed connection")).kind == "transient"
    assert classify_error(ConnectionResetError("reset")).kind == "transient"
    assert classify_error(TimeoutError()).kind == "transient"


def test_mid_stream_api_error_without_status_uses_text() -> None:
    class APIError(Exception):
        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.body = {"message": message}

    assert classify_error(APIError("The server had an error processing your request")).kind == "transient"
    assert classify_error(APIError("Invalid schema for function")).kind == "fatal"


def test_provider_error_passes_through() -> None:
    original = ProviderError("x", kind="overflow")
    assert classify_error(original) is original
