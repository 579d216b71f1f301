"""ACP prompt content blocks -> the text and images of one engine prompt."""

from __future__ import annotations

import mimetypes
from typing import Any

from acp.schema import BlobResourceContents, TextResourceContents

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
            elif isinstance(resource, BlobResourceContents) and (mime := _image_mime(resource)) is not None:
                # Toad attaches an @-mentioned binary file this way; an image is an image to the model.
                images.append(ImageContent(data=resource.blob, mime_type=mime))
            else:
                parts.append(f"(attached binary resource {resource.uri} is not supported)")
        elif kind == "resource_link":
            parts.append(f"@{block.uri}")
    return "\n\n".join(p for p in parts if p), images


def _image_mime(resource: BlobResourceContents) -> str | None:
    """The image type of a blob, from its mime type or else its file name; None for other files."""
    for mime in (resource.mime_type, mimetypes.guess_type(resource.uri)[0]):
        if mime and mime.startswith("image/"):
            return mime
    return None
