"""Turn HTTP failures and transport exceptions into `ProviderError`s with a retry-relevant kind.

Classification is duck-typed (status_code / response / body attributes and exception class
names), so it works the same for our own HTTP errors, the `httpx`/`httpx2` transport errors that
surface while streaming, and the exceptions of the optional cloud libraries (botocore, google-auth).
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

from atomic.core.providers.base import ErrorKind, ProviderError

# Texts servers use when the prompt does not fit the model's context window.
_OVERFLOW_PATTERNS = [
    r"prompt is too long",
    r"request_too_large",
    r"input is too long for requested model",
    r"exceeds the context window",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is \d+",
    r"reduce the length of the messages",
    r"maximum context length is \d+ tokens",
    r"exceeds the limit of \d+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with \d+ maximum context length",
    r"model_context_window_exceeded",
    r"prompt too long; exceeded (?:max )?context length",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
]
_OVERFLOW_RE = re.compile("|".join(f"(?:{p})" for p in _OVERFLOW_PATTERNS), re.IGNORECASE)

# Rate limits often mention tokens ("tokens per minute") but are not overflows.
_RATE_LIMIT_RE = re.compile(
    r"rate.?limit|too many requests|tokens per min|\bTPM\b|requests per min|\bRPM\b|quota", re.IGNORECASE
)

# Error texts (mostly mid-stream error events without an HTTP status) worth retrying.
_TRANSIENT_TEXT_RE = re.compile(
    r"overloaded|rate.?limit|too many requests|service.?unavailable|server.?error|server had an error|internal.?error"
    r"|api_error|network.?error|connection.?(?:error|refused|reset|lost)|timed? ?out|timeout"
    r"|ended without|upstream|bad gateway|gateway timeout|temporarily unavailable",
    re.IGNORECASE,
)

# Exception class names (anywhere in the MRO) that mean the connection failed or timed out.
_TRANSPORT_CLASS_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "TransportError",
        "TimeoutException",
        "NetworkError",
        "RemoteProtocolError",
        "ProtocolError",
        "ConnectionError",
        "TimeoutError",
        "IncompleteRead",
    }
)

_MAX_MESSAGE_CHARS = 2000


def is_context_overflow_text(text: str) -> bool:
    """True when an error text says the prompt exceeded the model's context window."""
    if not text:
        return False
    if _RATE_LIMIT_RE.search(text):
        return False
    if _OVERFLOW_RE.search(text):
        return True
    # Cerebras answers an overflowing request with a bare "400/413 (no body)".
    return re.match(r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)", text, re.IGNORECASE) is not None


def parse_retry_after(headers: Any) -> float | None:
    """Seconds the server asks us to wait (`retry-after-ms`, `retry-after` seconds or HTTP-date)."""
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000.0)
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        pass
    try:
        from email.utils import parsedate_to_datetime  # rare (an HTTP-date Retry-After); not at start-up

        when = parsedate_to_datetime(str(value))
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def classify_status(status: int | None, text: str) -> ErrorKind:
    """The error kind for an HTTP status (None or 200 for mid-stream errors) and its error text."""
    if status in (401, 403):
        return "auth"
    if is_context_overflow_text(text) or status == 413:
        return "overflow"
    if status is not None and (status in (408, 409, 425, 429) or status >= 500):
        return "transient"
    if status is not None and 400 <= status < 500:
        return "fatal"
    if _TRANSIENT_TEXT_RE.search(text):
        return "transient"
    return "fatal"


def scrub_secret(text: str, secret: str | None) -> str:
    """Never let an API key reach a message, log or session file."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text


def _class_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _status_error_text(exc: BaseException, status: int | None) -> str:
    """`529 {"type":"error",...}`: the status and the server's own body, compact."""
    body_text: str | None = None
    # foreign: an SDK's or httpx's exception; which of these attributes it has depends on its class
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            body_text = response.text
        except Exception:  # a streamed response that was never read
            body_text = None
    if not body_text:
        body = getattr(exc, "body", None)  # foreign: the SDK's parsed error body
        if isinstance(body, (dict, list)):
            body_text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        elif body is not None:
            body_text = str(body)
    if not body_text:
        body_text = str(exc) or type(exc).__name__
    body_text = body_text.strip()
    if status and status != 200:
        return f"{status} {body_text}"
    return body_text


def classify_error(exc: BaseException, *, api_key: str | None = None) -> ProviderError:
    """Map any exception raised while calling a provider to a `ProviderError`."""
    if isinstance(exc, ProviderError):
        exc.message = scrub_secret(exc.message, api_key)
        return exc
    names = _class_names(exc)
    # foreign: an SDK's or httpx's exception; which of these attributes it has depends on its class
    status = getattr(exc, "status_code", None)
    if not isinstance(status, int):
        status = None
    response = getattr(exc, "response", None)  # foreign: see above

    if status is not None or "APIStatusError" in names or "APIError" in names:
        text = _status_error_text(exc, status)
        http_status = status if status and status != 200 else None
        kind = classify_status(http_status, text)
        # foreign: the SDK response's headers
        retry_after = parse_retry_after(getattr(response, "headers", None)) if http_status else None
        return ProviderError(
            scrub_secret(text[:_MAX_MESSAGE_CHARS], api_key),
            kind=kind,
            status=http_status,
            retry_after_s=retry_after,
        )

    detail = str(exc) or type(exc).__name__
    if names & _TRANSPORT_CLASS_NAMES or isinstance(exc, (OSError, TimeoutError)):
        label = "Request timed out" if "timeout" in " ".join(names).lower() else "Connection error"
        return ProviderError(
            scrub_secret(f"{label}: {detail}"[:_MAX_MESSAGE_CHARS], api_key), kind="transient"
        )
    return ProviderError(
        scrub_secret(f"{type(exc).__name__}: {detail}"[:_MAX_MESSAGE_CHARS], api_key),
        kind=classify_status(None, detail),
    )


def stream_ended_early(what: str) -> ProviderError:
    return ProviderError(f"stream ended without a finish ({what})", kind="transient")
