"""A server's resources and prompts: what it lists, and their contents as Atomic content.

Resources are attached to a prompt by `@server:uri` mentions and read by the model through the
`read_mcp_resource` tool; each prompt becomes a slash command `/mcp__<server>__<prompt> args...`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from atomic.core.messages import ImageContent, TextContent

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
PROMPT_PREFIX = "mcp__"
_PAGES = 100  # a server whose paging never ends cannot hang start-up


@dataclass(frozen=True)
class McpResourceInfo:
    uri: str
    name: str
    description: str
    mime_type: str | None


@dataclass(frozen=True)
class McpPromptArgument:
    name: str
    description: str
    required: bool


@dataclass(frozen=True)
class McpPromptInfo:
    name: str
    description: str
    arguments: tuple[McpPromptArgument, ...]


def prompt_command(server: str, prompt: str) -> str:
    """The slash command of a server prompt, without its slash: `mcp__<server>__<prompt>`."""
    return f"{PROMPT_PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', prompt)}"


async def list_resources(client: Any) -> list[McpResourceInfo]:
    found: list[McpResourceInfo] = []
    cursor: str | None = None
    for _ in range(_PAGES):
        page = await client.list_resources(cursor=cursor)
        for item in page.resources:
            found.append(McpResourceInfo(str(item.uri), item.name, item.description or "", item.mime_type))
        cursor = page.next_cursor
        if not cursor:
            break
    return found


async def list_prompts(client: Any) -> list[McpPromptInfo]:
    found: list[McpPromptInfo] = []
    cursor: str | None = None
    for _ in range(_PAGES):
        page = await client.list_prompts(cursor=cursor)
        for item in page.prompts:
            arguments = tuple(
                McpPromptArgument(a.name, a.description or "", bool(a.required)) for a in item.arguments or []
            )
            found.append(McpPromptInfo(item.name, item.description or "", arguments))
        cursor = page.next_cursor
        if not cursor:
            break
    return found


def resource_blocks(result: dict[str, Any], *, supports_images: bool) -> list[TextContent | ImageContent]:
    """A `resources/read` result (protocol JSON) as content: text, images, other binaries named."""
    blocks: list[TextContent | ImageContent] = []
    for item in result.get("contents") or []:
        if not isinstance(item, dict):
            continue
        mime = str(item.get("mimeType") or "")
        if isinstance(item.get("text"), str):
            blocks.append(TextContent(text=item["text"]))
        elif isinstance(item.get("blob"), str) and mime.startswith("image/") and supports_images:
            blocks.append(ImageContent(data=item["blob"], mime_type=mime))
        else:
            blocks.append(TextContent(text=f"[binary resource {item.get('uri', '')} ({mime or 'unknown type'}) omitted]"))
    return blocks or [TextContent(text="(empty resource)")]


def prompt_text(result: dict[str, Any]) -> str:
    """A `prompts/get` result as the text of one user prompt (its messages' text, in order)."""
    parts: list[str] = []
    for message in result.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, dict):
            continue
        if content.get("type") == "text":
            parts.append(str(content.get("text", "")))
        elif content.get("type") == "resource" and isinstance(content.get("resource"), dict):
            resource = content["resource"]
            if isinstance(resource.get("text"), str):
                parts.append(f'<resource uri="{resource.get("uri", "")}">\n{resource["text"]}\n</resource>')
    return "\n\n".join(p for p in parts if p)


def prompt_arguments(prompt: McpPromptInfo, rest: str) -> dict[str, str]:
    """`name=value` pairs, or values in the order the prompt declares its arguments (the last
    declared one takes what is left). Raises ValueError when a required one is missing."""
    try:
        words = shlex.split(rest)
    except ValueError:
        words = rest.split()
    names = [a.name for a in prompt.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in names:
            values[key] = value
        else:
            positional.append(word)
    free = [n for n in names if n not in values]
    for index, name in enumerate(free):
        if index >= len(positional):
            break
        values[name] = " ".join(positional[index:]) if index == len(free) - 1 else positional[index]
    missing = [a.name for a in prompt.arguments if a.required and a.name not in values]
    if missing:
        usage = " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)
        raise ValueError(f"missing {', '.join(missing)}; usage: {usage}")
    return values
