"""The sources a provider's own web search used for one reply (the `webSearch` setting).

Anthropic keeps them in `web_search_tool_result` blocks, OpenAI's Responses API in `web_search_call`
items (their `action.sources`) and in `url_citation` annotations on the text; Atomic stores all of
them with the assistant message (its provider blocks), so they survive in the session and are sent
back as the API requires. This reads them for display.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from atomic.core.messages import AssistantMessage


@dataclass(frozen=True)
class WebSource:
    title: str
    url: str


def _from_block(data: dict[str, Any]) -> list[WebSource]:
    found: list[WebSource] = []
    kind = data.get("type")
    if kind == "web_search_tool_result" and isinstance(data.get("content"), list):
        for item in data["content"]:
            if isinstance(item, dict) and item.get("type") == "web_search_result" and isinstance(item.get("url"), str):
                found.append(WebSource(str(item.get("title") or item["url"]), item["url"]))
    elif kind == "web_search_call":
        action = data.get("action")
        for item in (action.get("sources") or []) if isinstance(action, dict) else []:
            if isinstance(item, dict) and isinstance(item.get("url"), str):
                found.append(WebSource(str(item.get("title") or item["url"]), item["url"]))
    elif kind == "message" and isinstance(data.get("content"), list):
        for part in data["content"]:
            for note in (part.get("annotations") or []) if isinstance(part, dict) else []:
                if isinstance(note, dict) and note.get("type") == "url_citation" and isinstance(note.get("url"), str):
                    found.append(WebSource(str(note.get("title") or note["url"]), note["url"]))
    return found


def web_sources(message: AssistantMessage) -> list[WebSource]:
    """Every web source of the reply, once each, in the order the provider gave them."""
    seen: dict[str, WebSource] = {}
    for block in message.provider_blocks or []:
        for source in _from_block(block.data):
            seen.setdefault(source.url, source)
    return list(seen.values())
