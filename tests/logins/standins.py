"""Local stand-ins for the servers the subscription logins talk to, speaking their shapes:

- GitHub: `POST /login/device/code`, `POST /login/oauth/access_token` (a scripted list of poll
  answers), `GET /copilot_internal/v2/token`;
- the Copilot API: `GET /models`, `POST /models/<id>/policy`, `POST /chat/completions`,
  `POST /v1/messages`, `POST /responses`;
- OpenAI's auth server: `GET /oauth/authorize` (checks the query, answers with a redirect to the
  callback carrying a code) and `POST /oauth/token` (checks the PKCE verifier against the
  challenge it was given, and the refresh grant);
- the ChatGPT backend: `POST /backend-api/codex/responses`.

Every request is recorded (path, lower-cased headers, parsed body).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from tests.support import LocalHTTPServer

GITHUB_TOKEN = "gho_standin_github_token"
ACCOUNT_ID = "acct-standin-0001"


def fake_jwt(claims: dict[str, Any]) -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(claims)}.c2ln"


def chatgpt_access_token(serial: int) -> str:
    return fake_jwt({"https://api.openai.com/auth": {"chatgpt_account_id": ACCOUNT_ID}, "n": serial})


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


def sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)


def completions_text(text: str) -> bytes:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}]}
    end = {"id": "c1", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}
    return sse([chunk, end]) + b"data: [DONE]\n\n"


def messages_text(text: str) -> bytes:
    frames = [
        ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                           "model": "claude", "content": [], "stop_reason": None,
                           "usage": {"input_tokens": 5, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return b"".join(f"event: {n}\ndata: {json.dumps(d)}\n\n".encode() for n, d in frames)


def responses_text(text: str, closing: str = "response.completed") -> bytes:
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return sse([
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "status": "in_progress", "content": []}},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": text},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": closing, "response": {"id": "resp_1", "status": "completed", "output": [item],
                                       "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7,
                                                 "input_tokens_details": {"cached_tokens": 0}}}},
    ])


def responses_tool_call(call_id: str, name: str, arguments: dict[str, Any]) -> bytes:
    item = {"type": "function_call", "id": "fc_1", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}
    return sse([
        {"type": "response.created", "response": {"id": "resp_t", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": json.dumps(arguments)},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.done", "response": {"id": "resp_t", "status": "completed", "output": [item],
                                                "usage": {"input_tokens": 9, "output_tokens": 3, "total_tokens": 12}}},
    ])


@dataclass
class StandIn:
    """State the tests script and read."""

    device_polls: list[dict[str, Any]] = field(default_factory=lambda: [{"error": "authorization_pending"}])
    device_interval: float = 0
    copilot_status: int = 200
    copilot_serial: int = 0
    copilot_expires_in: int = 1800
    models: list[dict[str, Any]] = field(default_factory=list)
    token_status: int = 200
    challenges: dict[str, str] = field(default_factory=dict)  # code -> (challenge)
    redirects: dict[str, str] = field(default_factory=dict)  # code -> redirect_uri
    refresh_tokens: set[str] = field(default_factory=set)
    openai_serial: int = 0
    pkce_checked: list[bool] = field(default_factory=list)
    codex_replies: list[bytes] = field(default_factory=list)
    codex_status: int = 200
    codex_error: dict[str, Any] | None = None
    seen: list[Seen] = field(default_factory=list)
    url: str = ""

    def copilot_token(self) -> str:
        return f"tid=standin;exp=0;proxy-ep=proxy.standin;sku=x;n={self.copilot_serial}"

    def requests_to(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state: StandIn

    def log_message(self, *args: Any) -> None:
        pass

    def _record(self, body: Any) -> Seen:
        target = urlparse(self.path)
        seen = Seen(self.command, target.path, parse_qs(target.query),
                    {k.lower(): v for k, v in self.headers.items()}, body)
        self.state.seen.append(seen)
        return seen

    def _send(self, status: int, body: bytes, content_type: str = "application/json",
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode())

    def do_GET(self) -> None:
        seen = self._record(None)
        s = self.state
        if seen.path == "/copilot_internal/v2/token":
            if seen.headers.get("authorization") != f"Bearer {GITHUB_TOKEN}" or s.copilot_status != 200:
                self._json(s.copilot_status if s.copilot_status != 200 else 401, {"message": "Bad credentials"})
                return
            s.copilot_serial += 1
            self._json(200, {"token": s.copilot_token(), "expires_at": int(time.time()) + s.copilot_expires_in,
                             "refresh_in": 1500, "endpoints": {"api": s.url}})
        elif seen.path == "/models":
            self._json(200, {"data": s.models, "object": "list"})
        elif seen.path == "/oauth/authorize":
            q = {k: v[0] for k, v in seen.query.items()}
            ok = (q.get("response_type") == "code" and q.get("code_challenge_method") == "S256"
                  and q.get("client_id") == "app_EMoamEEZ73f0CkXaXp7hrann" and q.get("code_challenge")
                  and "offline_access" in q.get("scope", ""))
            if not ok:
                self._json(400, {"error": "invalid_request"})
                return
            code = "code-" + secrets.token_hex(4)
            s.challenges[code] = q["code_challenge"]
            s.redirects[code] = q["redirect_uri"]
            location = f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}"
            self._send(302, b"", extra={"Location": location})
        else:
            self._json(404, {"message": "Not Found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        content_type = self.headers.get("content-type", "")
        body: Any = {k: v[0] for k, v in parse_qs(raw.decode()).items()} if "form" in content_type else (
            json.loads(raw) if raw else None)
        seen = self._record(body)
        s = self.state
        if seen.path == "/login/device/code":
            self._json(200, {"device_code": "dev-123", "user_code": "ABCD-1234",
                             "verification_uri": "https://github.com/login/device", "expires_in": 60, "interval": s.device_interval})
        elif seen.path == "/login/oauth/access_token":
            answer = s.device_polls.pop(0) if s.device_polls else {"access_token": GITHUB_TOKEN, "token_type": "bearer"}
            self._json(200, answer)
        elif seen.path.startswith("/models/") and seen.path.endswith("/policy"):
            self._json(200, {"state": "enabled"})
        elif seen.path == "/chat/completions":
            self._send(200, completions_text("hello from copilot chat"), "text/event-stream")
        elif seen.path == "/v1/messages":
            self._send(200, messages_text("hello from copilot claude"), "text/event-stream")
        elif seen.path == "/responses":
            self._send(200, responses_text("hello from copilot responses"), "text/event-stream")
        elif seen.path == "/oauth/token":
            self._token(body or {})
        elif seen.path == "/backend-api/codex/responses":
            if s.codex_error is not None:
                self._json(s.codex_status, s.codex_error)
            else:
                reply = s.codex_replies.pop(0) if s.codex_replies else responses_text("hello from chatgpt",
                                                                                                    "response.done")
                self._send(200, reply, "text/event-stream")
        else:
            self._json(404, {"message": "Not Found"})

    def _token(self, form: dict[str, str]) -> None:
        s = self.state
        if s.token_status != 200:
            self._json(s.token_status, {"error": "invalid_grant", "error_description": "Refresh token revoked"})
            return
        if form.get("client_id") != "app_EMoamEEZ73f0CkXaXp7hrann":
            self._json(401, {"error": "invalid_client"})
            return
        if form.get("grant_type") == "authorization_code":
            code = form.get("code", "")
            challenge = s.challenges.pop(code, None)
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            matches = challenge is not None and digest == challenge and form.get("redirect_uri") == s.redirects.get(code)
            s.pkce_checked.append(matches)
            if not matches:
                self._json(400, {"error": "invalid_grant", "error_description": "PKCE verification failed"})
                return
        elif form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") not in s.refresh_tokens:
                self._json(400, {"error": "invalid_grant", "error_description": "Unknown refresh token"})
                return
            s.refresh_tokens.discard(form["refresh_token"])
        else:
            self._json(400, {"error": "unsupported_grant_type"})
            return
        s.openai_serial += 1
        refresh = f"rt-standin-{s.openai_serial}"
        s.refresh_tokens.add(refresh)
        self._json(200, {"access_token": chatgpt_access_token(s.openai_serial), "refresh_token": refresh,
                         "id_token": fake_jwt({"email": "a@b.c"}), "expires_in": 864000, "token_type": "Bearer"})


class StandInServer:
    def __init__(self) -> None:
        self.state = StandIn()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = LocalHTTPServer(handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.state.url = self.url
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> StandInServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
