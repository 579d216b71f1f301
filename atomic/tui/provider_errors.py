"""Provider errors as a person would say them: what happened (status, provider) and what to do.

The engine keeps the raw error text (`529 {"type":"error",...}`, `Connection error: ...`); the TUI shows a
short sentence and keeps the raw text for the expanded view.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PROVIDER_NAMES = {
    "anthropic": "Anthropic",
    "openai": "OpenAI",
    "openrouter": "OpenRouter",
    "google": "Google",
    "groq": "Groq",
    "deepseek": "DeepSeek",
    "xai": "xAI",
    "mistral": "Mistral",
    "cerebras": "Cerebras",
    "scripted": "The scripted provider",
}

_STATUS = re.compile(r"^\s*(\d{3})\b\s*(.*)$", re.DOTALL)
_OVERFLOW = re.compile(
    r"prompt is too long|context window|context[_ ]length|maximum context|too many tokens|request_too_large",
    re.IGNORECASE,
)
_OVERLOADED = re.compile(r"overloaded", re.IGNORECASE)
_DETAIL_LIMIT = 160


@dataclass(frozen=True)
class ErrorText:
    summary: str  # what happened, one sentence with the status and the provider
    advice: str  # what to do about it
    raw: str  # the error as the provider sent it (shown on expansion)


def provider_name(provider: str) -> str:
    return PROVIDER_NAMES.get(provider, provider or "The provider")


def _detail_from_body(body: str) -> str:
    """The human part of an error body: `error.message` (or `message`, `detail`) of a JSON body, else
    its first line."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    found: object = None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            found = error.get("message") or error.get("type")
        elif isinstance(error, str):
            found = error
        found = found or data.get("message") or data.get("detail")
    detail = str(found) if found else (text.splitlines()[0] if text else "")
    detail = " ".join(detail.split())
    return detail if len(detail) <= _DETAIL_LIMIT else detail[: _DETAIL_LIMIT - 1] + "…"


def describe_error(raw: str, provider: str, model_id: str = "", env_var: str | None = None) -> ErrorText:
    """Turn a stored error text into a summary and advice."""
    name = provider_name(provider)
    raw = raw or "unknown error"
    match = _STATUS.match(raw)
    status = int(match.group(1)) if match else None
    detail = _detail_from_body(match.group(2) if match else raw)
    key_hint = f"/login, or set ${env_var}" if env_var else "/login"
    model = model_id or "this model"

    def said(sentence: str) -> str:
        # The provider's own words, when they add something to the sentence.
        return f"{sentence}: {detail}" if detail and detail.lower() not in sentence.lower() else sentence

    if status in (401, 403):
        return ErrorText(said(f"{name} rejected the API key ({status})"), f"Check the key with {key_hint}.", raw)
    if status == 413 or _OVERFLOW.search(raw):
        where = f" ({status})" if status else ""
        return ErrorText(
            f"The conversation no longer fits {model}'s context window{where}",
            "Run /compact, or pick a model with a larger window (ctrl+l).",
            raw,
        )
    if status == 429:
        return ErrorText(said(f"{name} is rate limiting requests (429)"), "Wait a moment, then send again.", raw)
    if status == 529 or (status is not None and status >= 500 and _OVERLOADED.search(raw)):
        return ErrorText(f"{name} is overloaded ({status})", "Try again in a moment.", raw)
    if status is not None and status >= 500:
        return ErrorText(said(f"{name} had a server error ({status})"), "Try again in a moment.", raw)
    if status == 404:
        return ErrorText(said(f"{name} does not know {model} (404)"), "Pick another model with ctrl+l.", raw)
    if status is not None and 400 <= status < 500:
        return ErrorText(said(f"{name} rejected the request ({status})"), "Change the request or the model, then send again.", raw)
    lowered = raw.lower()
    if lowered.startswith("connection error"):
        return ErrorText(f"Could not reach {name} (connection error)", "Check the network, then send again.", raw)
    if lowered.startswith("request timed out") or "timed out" in lowered:
        return ErrorText(f"{name} did not answer in time", "Send again to retry.", raw)
    if "ended without" in lowered:
        return ErrorText(f"{name} ended the reply early", "Send again to retry.", raw)
    if _OVERLOADED.search(raw):
        return ErrorText(f"{name} is overloaded", "Try again in a moment.", raw)
    return ErrorText(f"{name} error: {detail}", "Send again, or pick another model with ctrl+l.", raw)
