"""What a local Bedrock stand-in needs: AWS event-stream frames, encoded byte for byte, and a SigV4
check of the Authorization header a request arrived with (written from AWS's signing rules, not
with the library the provider signs with, so the two must agree)."""

from __future__ import annotations

import binascii
import hashlib
import hmac
import json
import struct
from typing import Any
from urllib.parse import quote

from tests.providers.sse_server import RecordedRequest

_STRING = 7


def _headers(headers: dict[str, str]) -> bytes:
    out = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        out += struct.pack("!B", len(raw_name)) + raw_name + struct.pack("!BH", _STRING, len(raw_value)) + raw_value
    return out


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude (lengths + CRC), headers, payload, message CRC."""
    encoded = _headers(headers)
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded))
    prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + encoded + payload
    return message + struct.pack("!I", binascii.crc32(message) & 0xFFFFFFFF)


def event(event_type: str, body: dict[str, Any]) -> bytes:
    return frame({":event-type": event_type, ":content-type": "application/json", ":message-type": "event"},
                 json.dumps(body).encode())


def exception(kind: str, message: str) -> bytes:
    return frame({":exception-type": kind, ":content-type": "application/json", ":message-type": "exception"},
                 json.dumps({"message": message}).encode())


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def sigv4_problems(request: RecordedRequest, access_key: str, secret_key: str, region: str,
                   service: str = "bedrock", session_token: str | None = None) -> list[str]:
    """What is wrong with the request's SigV4 signature (an empty list when it is right)."""
    headers = request.headers
    authorization = headers.get("authorization", "")
    if not authorization.startswith("AWS4-HMAC-SHA256 "):
        return [f"not a SigV4 Authorization header: {authorization[:40]!r}"]
    fields = dict(part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
    amz_date = headers.get("x-amz-date", "")
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    problems = []
    if fields["Credential"] != f"{access_key}/{scope}":
        problems.append(f"credential scope {fields['Credential']} is not {access_key}/{scope}")
    if session_token is not None and headers.get("x-amz-security-token") != session_token:
        problems.append("the session token is missing")
    signed = fields["SignedHeaders"].split(";")
    for needed in ("host", "x-amz-date"):
        if needed not in signed:
            problems.append(f"{needed} is not signed")
    path, _, query = request.path.partition("?")
    canonical_query = "&".join(sorted(query.split("&"))) if query else ""
    canonical = "\n".join([
        "POST",
        quote(path, safe="/~"),  # every service but S3 encodes the (already encoded) path once more
        canonical_query,
        "".join(f"{name}:{' '.join(headers.get(name, '').split())}\n" for name in signed),
        fields["SignedHeaders"],
        hashlib.sha256(request.raw).hexdigest(),
    ])
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = _hmac(("AWS4" + secret_key).encode(), amz_date[:8])
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if fields["Signature"] != expected:
        problems.append("the signature does not match the request")
    return problems
