"""MCP tools as Atomic tools: `mcp__<server>__<tool>`, result conversion, and the tool-search tool."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from atomic.core.mcp.connection import McpConnection, McpError, McpToolInfo
from atomic.core.mcp.results import ResultLimits, bound_result, bound_text
from atomic.core.messages import ImageContent, TextContent
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

# Provider APIs accept tool names of at most 64 characters from [A-Za-z0-9_-].
MAX_TOOL_NAME = 64
SEARCH_TOOL_NAME = "mcp_tool_search"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def exposed_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>` (Claude Code's name); other characters become `_`, long names get a hash."""
    name = f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


def progress_text(done: float, total: float | None, message: str | None) -> str:
    """A server's progress as one line: `Indexing (3/10)`, `40%`, `step 3`."""
    if total:
        amount = f"{done:g}/{total:g}"
    else:
        amount = f"{done:g}"
    return f"{message} ({amount})" if message else f"progress {amount}"


def _object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    # Providers reject a tool schema that is not an object schema.
    if schema.get("type") != "object":
        return {"type": "object", "properties": {}}
    return schema


def for_user_only(item: dict[str, Any]) -> bool:
    """Content annotated `audience: ["user"]` is meant for the person, not the model."""
    annotations = item.get("annotations")
    audience = annotations.get("audience") if isinstance(annotations, dict) else None
    return isinstance(audience, list) and bool(audience) and "assistant" not in audience


def user_only_text(result: dict[str, Any]) -> list[str]:
    """The text of the result's user-only content, shown to the user in the tool's details."""
    out: list[str] = []
    for item in result.get("content") or []:
        if isinstance(item, dict) and for_user_only(item) and item.get("type") == "text":
            out.append(str(item.get("text", "")))
    return out


def convert_result(result: dict[str, Any], *, supports_images: bool) -> tuple[list[TextContent | ImageContent], bool]:
    """An MCP `CallToolResult` (protocol JSON) as tool-result blocks, and whether it is an error."""
    blocks: list[TextContent | ImageContent] = []
    for item in result.get("content") or []:
        if not isinstance(item, dict) or for_user_only(item):
            continue
        kind = item.get("type")
        if kind == "text":
            blocks.append(TextContent(text=str(item.get("text", ""))))
        elif kind == "image" and isinstance(item.get("data"), str):
            mime = str(item.get("mimeType") or "image/png")
            if supports_images:
                blocks.append(ImageContent(data=item["data"], mime_type=mime))
            else:
                blocks.append(TextContent(text=f"[image {mime} omitted: the current model does not accept images]"))
        elif kind == "audio":
            blocks.append(TextContent(text=f"[audio {item.get('mimeType', '')} omitted]"))
        elif kind == "resource_link":
            blocks.append(TextContent(text=f"[resource {item.get('name', '')}: {item.get('uri', '')}]"))
        elif kind == "resource" and isinstance(item.get("resource"), dict):
            resource = item["resource"]
            if isinstance(resource.get("text"), str):
                blocks.append(TextContent(text=resource["text"]))
            else:
                blocks.append(TextContent(text=f"[binary resource {resource.get('uri', '')} omitted]"))
    structured = result.get("structuredContent")
    if structured is not None and not any(isinstance(b, TextContent) for b in blocks):
        blocks.append(TextContent(text=json.dumps(structured, ensure_ascii=False, indent=2)))
    if not blocks:
        blocks.append(TextContent(text="(no output)"))
    return blocks, bool(result.get("isError"))


class McpTool(Tool):
    def __init__(
        self,
        connection: McpConnection,
        info: McpToolInfo,
        timeout_s: Callable[[], float],
        result_limits: Callable[[], ResultLimits] = ResultLimits,
    ) -> None:
        self.connection = connection
        self.info = info
        self.name = exposed_name(connection.name, info.name)
        self.label = f"{connection.name}: {info.name}"
        self.description = info.description or f"Tool {info.name} of MCP server {connection.name}"
        self.parameters = _object_schema(info.input_schema)
        self.prompt_snippet = ""
        self._timeout_s = timeout_s
        self._result_limits = result_limits

    def estimated_tokens(self) -> int:
        """A rough size of the tool's definition in the request (about four characters a token)."""
        return len(self.name) // 4 + len(self.description) // 4 + len(json.dumps(self.parameters)) // 4 + 10

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        timeout = self.connection.config.timeout_ms / 1000 if self.connection.config.timeout_ms else self._timeout_s()
        def progress(done: float, total: float | None, message: str | None) -> None:
            ctx.on_update(ToolOutput.text(progress_text(done, total, message),
                                          details={"progress": done, "total": total, "message": message}))

        try:
            result = await self.connection.call(self.info.name, args, timeout, progress)
        except McpError as exc:
            raise ToolError(str(exc)) from None
        blocks, is_error = convert_result(result, supports_images=ctx.supports_images)
        limits = self._result_limits()
        if is_error:
            text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
            raise ToolError(bound_text(text, limits, session_id=ctx.session_id, tool=self.name)
                            if text else f"MCP tool {self.info.name} failed")
        bounded = bound_result(blocks, limits, session_id=ctx.session_id, tool=self.name)
        details: dict[str, Any] = {"server": self.connection.name, "tool": self.info.name}
        structured = result.get("structuredContent")
        # Details are stored with the session: a huge structured result stays in the full-output file.
        if structured is not None and not bounded.truncated and (
            len(json.dumps(structured, ensure_ascii=False)) <= limits.max_bytes
        ):
            details["structuredContent"] = structured
        if bounded.truncated:
            details["truncation"] = {"totalBytes": bounded.total_bytes, "totalLines": bounded.total_lines,
                                     "maxBytes": limits.max_bytes, "maxLines": limits.max_lines}
            details["fullOutputPath"] = bounded.full_output_path
        shown = user_only_text(result)
        if shown:
            details["userContent"] = shown
        return ToolOutput(content=bounded.blocks, details=details)


def _score(tool: McpTool, terms: list[str]) -> int:
    name = tool.name.lower()
    text = f"{tool.connection.name} {tool.info.name} {tool.description}".lower()
    score = 0
    for term in terms:
        if term in name:
            score += 3
        elif term in text:
            score += 1
    return score


class McpToolSearch(Tool):
    """Stands in for the MCP tools when their definitions would crowd the context window.

    It finds tools by keywords and returns their schemas; the tools it returns are offered to
    the model from the next step on (and can be called by name right away)."""

    name = SEARCH_TOOL_NAME
    label = "MCP tool search"
    parameters = {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Keywords describing the capability you need, or exact tool names separated by commas",
            },
            "limit": {"type": "integer", "description": "Most tools to return (default 5)", "minimum": 1},
        },
        "required": ["query"],
    }

    def __init__(self, tools: Callable[[], list[McpTool]], load: Callable[[list[str]], None]) -> None:
        self._tools = tools
        self._load = load

    # The description names the servers connected now, so it is computed (the base class has a plain attribute).
    @property
    def description(self) -> str:  # type: ignore[override]
        servers = sorted({t.connection.name for t in self._tools()})
        return (
            "Find tools of the connected MCP servers ("
            + ", ".join(servers)
            + ") by keywords and load them. Their definitions are not sent up front to save context; "
            "search before you need one. Returns each match's name, description and JSON schema; "
            "matched tools can be called from then on."
        )

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        query = str(args.get("query") or "").strip()
        if not query:
            raise ToolError("query must not be empty")
        limit = args.get("limit") if isinstance(args.get("limit"), int) and args["limit"] > 0 else 5
        tools = self._tools()
        by_name = {t.name: t for t in tools}
        named = [by_name[n.strip()] for n in query.split(",") if n.strip() in by_name]
        if named:
            matches = named
        else:
            terms = [t for t in re.split(r"[\s,]+", query.lower()) if t]
            ranked = sorted(((_score(t, terms), t) for t in tools), key=lambda pair: -pair[0])
            matches = [t for score, t in ranked if score > 0][:limit]
        if not matches:
            return ToolOutput.text(f"No MCP tool matches {query!r}. Tools exist on: "
                                   + ", ".join(sorted({t.connection.name for t in tools})))
        self._load([t.name for t in matches])
        lines = [f"{len(matches)} tool(s) loaded; call them by name:"]
        for tool in matches:
            lines.append(json.dumps(
                {"name": tool.name, "description": tool.description, "input_schema": tool.parameters},
                ensure_ascii=False,
            ))
        return ToolOutput.text("\n".join(lines), details={"loaded": [t.name for t in matches]})
