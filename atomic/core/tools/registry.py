"""The built-in tools by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from atomic.core.tools.base import Tool
from atomic.core.tools.bash import BashTool
from atomic.core.tools.edit import EditTool
from atomic.core.tools.find import FindTool
from atomic.core.tools.grep import GrepTool
from atomic.core.tools.ls import LsTool
from atomic.core.tools.read import ReadTool
from atomic.core.tools.task import TaskTool
from atomic.core.tools.todo import TodoTool
from atomic.core.tools.web_fetch import WebFetchTool
from atomic.core.tools.write import WriteTool

_FACTORIES: dict[str, Callable[[], Tool]] = {
    "read": ReadTool,
    "bash": BashTool,
    "edit": EditTool,
    "write": WriteTool,
    "grep": GrepTool,
    "find": FindTool,
    "ls": LsTool,
    "todo": TodoTool,
    "task": TaskTool,
    "web_fetch": WebFetchTool,
}

BUILTIN_TOOL_NAMES: tuple[str, ...] = tuple(_FACTORIES)
DEFAULT_TOOL_NAMES: tuple[str, ...] = ("read", "bash", "edit", "write", "todo", "task", "web_fetch")


def create_builtin_tools(names: Iterable[str] | None = None) -> list[Tool]:
    """Fresh tool instances, in the order given (default: read, bash, edit, write)."""
    selected = list(DEFAULT_TOOL_NAMES if names is None else names)
    unknown = [name for name in selected if name not in _FACTORIES]
    if unknown:
        raise ValueError(
            f"Unknown tool name(s): {', '.join(unknown)}. Built-in tools are: {', '.join(BUILTIN_TOOL_NAMES)}"
        )
    return [_FACTORIES[name]() for name in dict.fromkeys(selected)]
