"""ACP prompt content blocks -> the text and images of one engine prompt."""

from __future__ import annotations

from typing import Any

from acp.schema import TextResourceContents

from atomic.core.messages import ImageContent


def flatten_prompt(blocks: list[Any]) -> tuple[str, list[ImageContent]]:
    """Text blocks in order; embedded resources as `<file>` blocks (pi's @file form); links by URI."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        kind = block.type
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            images.append(ImageContent(data=block.data, mime_type=block.mime_type))
        elif kind == "resource":
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                parts.append(f'<file name="{resource.uri}">\n{resource.text}\n</file>')
            else:
                parts.append(f"(attached binary resource {resource.uri} is not supported)")
        elif kind == "resource_link":
            parts.append(f"@{block.uri}")
    return "\n\n".join(p for p in parts if p), images
