"""Google credentials for Vertex AI: Application Default Credentials, through google-auth.

google-auth finds the credentials the way every Google tool does (`GOOGLE_APPLICATION_CREDENTIALS`
naming a service account or user credentials file, then gcloud's
`application_default_credentials.json`, then the metadata server of a Google Cloud machine) and
refreshes the short-lived access token before it expires. Its token requests go over a small
urllib transport here, so the extra needs no HTTP library besides google-auth itself.

Loading and refreshing block (file reads, an HTTPS call to the token endpoint): callers run
`authorized_headers` in a worker thread, never on the event loop.
"""

from __future__ import annotations

import os
import threading
import urllib.error
import urllib.request
from typing import Any

from atomic.core.providers.base import ProviderError
from atomic.core.providers.extras import require

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
TOKEN_TIMEOUT_S = 30.0

_lock = threading.Lock()
# GOOGLE_APPLICATION_CREDENTIALS value -> (credentials, project the credentials name).
_cache: dict[str, tuple[Any, str | None]] = {}


def _transport() -> Any:
    """A google-auth `Request` that sends with urllib."""
    transport = require("google.auth.transport", "Vertex AI with Application Default Credentials")

    class Response(transport.Response):  # type: ignore[misc,name-defined]
        def __init__(self, status: int, headers: dict[str, str], data: bytes) -> None:
            self._status, self._headers, self._data = status, headers, data

        @property
        def status(self) -> int:
            return self._status

        @property
        def headers(self) -> dict[str, str]:
            return self._headers

        @property
        def data(self) -> bytes:
            return self._data

    class Request(transport.Request):  # type: ignore[misc,name-defined]
        def __call__(self, url: str, method: str = "GET", body: Any = None, headers: Any = None,
                     timeout: Any = None, **_kwargs: Any) -> Response:
            data = body.encode() if isinstance(body, str) else body
            outgoing = urllib.request.Request(url, data=data, headers=dict(headers or {}), method=method)
            try:
                with urllib.request.urlopen(outgoing, timeout=timeout or TOKEN_TIMEOUT_S) as answer:
                    return Response(answer.status, dict(answer.headers), answer.read())
            except urllib.error.HTTPError as failed:
                return Response(failed.code, dict(failed.headers or {}), failed.read())
            except (urllib.error.URLError, OSError) as exc:
                exceptions = require("google.auth.exceptions", "Vertex AI")
                raise exceptions.TransportError(str(exc)) from exc

    return Request()


def _load() -> tuple[Any, str | None]:
    key = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS", "")
    cached = _cache.get(key)
    if cached is not None:
        return cached
    google_auth = require("google.auth", "Vertex AI with Application Default Credentials")
    exceptions = require("google.auth.exceptions", "Vertex AI")
    try:
        credentials, project = google_auth.default(scopes=SCOPES)
    except exceptions.DefaultCredentialsError as exc:
        raise ProviderError(
            f"Vertex AI found no Google credentials: {exc} Run `gcloud auth application-default login`, set "
            "GOOGLE_APPLICATION_CREDENTIALS to a service account file, or use an express-mode key (GOOGLE_CLOUD_API_KEY).",
            kind="auth",
        ) from None
    _cache[key] = (credentials, project)
    return credentials, project


def authorized_headers() -> tuple[dict[str, str], str | None]:
    """`authorization` (and a quota project header for user credentials), and the credentials' project."""
    with _lock:
        credentials, project = _load()
        if not credentials.valid:
            exceptions = require("google.auth.exceptions", "Vertex AI")
            try:
                credentials.refresh(_transport())
            except exceptions.RefreshError as exc:
                raise ProviderError(
                    f"Vertex AI could not refresh the Google access token: {exc}. "
                    "Run `gcloud auth application-default login` again or check the service account.",
                    kind="auth",
                ) from None
            except exceptions.TransportError as exc:
                raise ProviderError(f"Connection error while fetching a Google access token: {exc}",
                                    kind="transient") from None
        headers: dict[str, str] = {}
        credentials.apply(headers)
    return {name.lower(): value for name, value in headers.items()}, project


def forget_credentials() -> None:
    """Drop the loaded credentials (tests; a changed credentials file)."""
    with _lock:
        _cache.clear()
