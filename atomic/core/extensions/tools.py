"""Tools that extensions register: a Tool wrapper around a user `execute` function.

Parameters are a JSON-schema dict or a pydantic model class. With a model class the arguments are
validated into an instance before `execute` sees them, and a validation failure becomes an error
result the model can read and correct. An `execute` that raises anything but `ToolError` is also
reported as an `extension_error` event, because it is a bug in the extension, not in the call.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ValidationError

from atomic.core.messages import ImageContent, TextContent
from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

ErrorReporter = Callable[[str, str, str], None]


def is_model_class(value: Any) -> bool:
    return inspect.isclass(value) and issubclass(value, BaseModel)


def schema_of(parameters: Any) -> dict[str, Any]:
    """The JSON schema the provider receives for `parameters` (dict, model class or None)."""
    if parameters is None:
        return {"type": "object", "properties": {}}
    if is_model_class(parameters):
        return parameters.model_json_schema()
    if isinstance(parameters, dict):
        return parameters
    raise TypeError("parameters must be a JSON-schema dict or a pydantic BaseModel class")


def _block(value: Any) -> TextContent | ImageContent:
    if isinstance(value, TextContent | ImageContent):
        return value
    if isinstance(value, str):
        return TextContent(text=value)
    if isinstance(value, dict):
        if value.get("type") == "image":
            return ImageContent.model_validate(value)
        return TextContent.model_validate(value)
    raise TypeError(f"cannot turn {type(value).__name__} into a tool result content block")


def content_blocks(value: Any) -> list[TextContent | ImageContent]:
    """Content given as a string, one block, or a list of blocks/dicts/strings."""
    if isinstance(value, list):
        return [_block(item) for item in value]
    return [_block(value)]


def to_tool_output(result: Any) -> ToolOutput:
    """What an extension's execute may return: str, ToolOutput, {content, details} or None."""
    if isinstance(result, ToolOutput):
        return result
    if result is None:
        return ToolOutput.text("")
    if isinstance(result, dict) and "content" in result:
        return ToolOutput(content=content_blocks(result["content"]), details=result.get("details"))
    if isinstance(result, str | list | TextContent | ImageContent):
        return ToolOutput(content=content_blocks(result))
    return ToolOutput.text(str(result))


class ExtensionTool(Tool):
    def __init__(
        self,
        *,
        name: str,
        description: str,
        parameters: Any,
        execute: Callable[..., Any],
        extension_path: str,
        report_error: ErrorReporter,
        label: str | None = None,
        prompt_snippet: str | None = None,
        read_only: bool = False,
    ) -> None:
        if not name or not isinstance(name, str):
            raise ValueError("tool name must be a non-empty string")
        if not callable(execute):
            raise TypeError("execute must be callable")
        self.name = name
        self.label = label or name
        self.description = description
        self.parameters = schema_of(parameters)
        self.prompt_snippet = prompt_snippet or ""
        # Declared by the extension: a read-only tool is never asked about, any other is asked like bash.
        self.read_only = bool(read_only)
        self.model_class: type[BaseModel] | None = parameters if is_model_class(parameters) else None
        self.schema_checked = self.model_class is None
        self.extension_path = extension_path
        self._execute = execute
        self._report_error = report_error

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        parsed: Any = args
        if self.model_class is not None:
            try:
                parsed = self.model_class.model_validate(args)
            except ValidationError as exc:
                raise ToolError(f"Invalid arguments for tool {self.name}: {exc}") from exc
        try:
            result = self._execute(call_id, parsed, ctx)
            if inspect.isawaitable(result):
                result = await result
            return to_tool_output(result)
        except (ToolError, asyncio.CancelledError):
            raise
        except Exception as exc:
            message = f"{type(exc).__name__}: {exc}"
            self._report_error(self.extension_path, f"tool:{self.name}", message)
            raise ToolError(f"Tool {self.name} failed: {message}") from exc
