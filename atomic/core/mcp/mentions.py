"""What MCP adds to a user's prompt: `/mcp__<server>__<prompt> args...` and `@server:uri` mentions.

A prompt command is replaced by the text of the server's prompt (`prompts/get`). Each mention of
a resource of a connected server attaches its content after the prompt's text (text resources as
`<resource>` blocks, bounded like tool results; images as images). The same in every frontend:
the expansion runs in the engine when a prompt is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from atomic.core.mcp.catalog import (
    McpPromptInfo,
    prompt_arguments,
    prompt_command,
    prompt_text,
    resource_blocks,
)
from atomic.core.mcp.connection import McpConnection
from atomic.core.mcp.errors import McpError
from atomic.core.mcp.results import ResultLimits, bound_result
from atomic.core.messages import ImageContent, TextContent

# `@server:uri`, not inside a word or an e-mail address; the URI runs to the next blank.
MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")
_COMMAND = re.compile(r"\s*/(mcp__\S+)(?:\s+(.*))?\s*$", re.S)
_TRAILING = ".,;:!?)]}'\""


class PromptCommandError(Exception):
    """A `/mcp__...` command that cannot run (unknown prompt, missing argument, server error)."""


def find_prompt(connections: Mapping[str, McpConnection], command: str) -> tuple[McpConnection, McpPromptInfo] | None:
    for conn in connections.values():
        for prompt in conn.prompts:
            if prompt_command(conn.name, prompt.name) == command:
                return conn, prompt
    return None


def mentions(text: str, connections: Mapping[str, McpConnection]) -> list[tuple[McpConnection, str]]:
    """The resource mentions of configured servers, in order, each once."""
    found: list[tuple[McpConnection, str]] = []
    for match in MENTION.finditer(text):
        conn = connections.get(match.group(1))
        uri = match.group(2).rstrip(_TRAILING)
        if conn is not None and uri and all(c is not conn or u != uri for c, u in found):
            found.append((conn, uri))
    return found


def wants_expansion(text: str, connections: Mapping[str, McpConnection]) -> bool:
    return bool(_COMMAND.match(text)) or bool(mentions(text, connections))


async def expand_prompt_command(text: str, connections: Mapping[str, McpConnection], timeout_s: float) -> str:
    match = _COMMAND.match(text)
    if match is None:
        return text
    found = find_prompt(connections, match.group(1))
    if found is None:
        return text  # not an MCP prompt: the text goes on as typed
    conn, prompt = found
    try:
        arguments = prompt_arguments(prompt, match.group(2) or "")
        result = await conn.get_prompt(prompt.name, arguments, timeout_s)
    except (ValueError, McpError) as exc:
        raise PromptCommandError(f"/{match.group(1)}: {exc}") from None
    return prompt_text(result) or text


async def attach_mentions(
    text: str,
    images: list[ImageContent],
    connections: Mapping[str, McpConnection],
    *,
    timeout_s: float,
    limits: ResultLimits,
    session_id: str | None,
    supports_images: bool,
) -> tuple[str, list[ImageContent]]:
    parts = [text]
    images = list(images)
    for conn, uri in mentions(text, connections):
        try:
            result = await conn.read_resource(uri, timeout_s)
        except McpError as exc:
            parts.append(f'<resource server="{conn.name}" uri="{uri}">\n(could not be read: {exc})\n</resource>')
            continue
        blocks = bound_result(resource_blocks(result, supports_images=supports_images), limits,
                              session_id=session_id, tool=f"resource-{conn.name}").blocks
        body = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
        images += [b for b in blocks if isinstance(b, ImageContent)]
        parts.append(f'<resource server="{conn.name}" uri="{uri}">\n{body}\n</resource>')
    return "\n\n".join(parts), images
