"""The `todo` tool: the model's visible to-do list for multi-step work.

Each call replaces the whole list. The list lives in the session as the tool result's details, so
it belongs to the branch: resuming, switching sessions or moving in the tree brings back the list
of that point, and `current_todos` reads it from whatever the model's context holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from atomic.core.tools.base import Tool, ToolContext, ToolError, ToolOutput

TODO_TOOL = "todo"
# The custom message that carries the list past a compaction that cut its last tool result.
TODO_CUSTOM_TYPE = "todo_list"

TodoStatus = Literal["pending", "in_progress", "completed"]
TodoPriority = Literal["high", "medium", "low"]
STATUSES: tuple[str, ...] = get_args(TodoStatus)
PRIORITIES: tuple[str, ...] = get_args(TodoPriority)
_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


@dataclass(frozen=True)
class TodoItem:
    content: str
    status: TodoStatus
    priority: TodoPriority | None = None

    def to_dict(self) -> dict[str, str]:
        data = {"content": self.content, "status": self.status}
        if self.priority is not None:
            data["priority"] = self.priority
        return data


_STATUS_BY_NAME: dict[str, TodoStatus] = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
_PRIORITY_BY_NAME: dict[str, TodoPriority] = {"high": "high", "medium": "medium", "low": "low"}


def _status(value: Any) -> TodoStatus:
    if isinstance(value, str) and value in _STATUS_BY_NAME:
        return _STATUS_BY_NAME[value]
    raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {value!r}")


def _priority(value: Any) -> TodoPriority | None:
    if value is None:
        return None
    if isinstance(value, str) and value in _PRIORITY_BY_NAME:
        return _PRIORITY_BY_NAME[value]
    raise ValueError(f"priority must be one of {', '.join(PRIORITIES)}, not {value!r}")


def parse_todos(raw: Any) -> tuple[TodoItem, ...]:
    """The list as the tool (or a stored result) gives it; ValueError names what is wrong."""
    if not isinstance(raw, list):
        raise ValueError("todos must be a list")
    items: list[TodoItem] = []
    for index, entry in enumerate(raw):
        if not isinstance(entry, dict):
            raise ValueError(f"todos[{index}] must be an object")
        content = entry.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ValueError(f"todos[{index}].content must be a non-empty string")
        try:
            items.append(TodoItem(content.strip(), _status(entry.get("status")), _priority(entry.get("priority"))))
        except ValueError as exc:
            raise ValueError(f"todos[{index}]: {exc}") from None
    if sum(1 for item in items if item.status == "in_progress") > 1:
        raise ValueError("at most one item may be in_progress at a time")
    return tuple(items)


def format_todos(items: Sequence[TodoItem]) -> str:
    if not items:
        return "(the to-do list is empty)"
    done = sum(1 for item in items if item.status == "completed")
    lines = [f"To-do list ({done}/{len(items)} done):"]
    lines += [f"{_MARKS[item.status]} {item.content}" for item in items]
    return "\n".join(lines)


def todos_in_message(message: dict[str, Any]) -> tuple[TodoItem, ...] | None:
    """The list a stored message sets, or None when the message is not a todo update."""
    role = message.get("role")
    if role == "toolResult" and message.get("toolName") == TODO_TOOL and not message.get("isError"):
        details = message.get("details")
    elif role == "custom" and message.get("customType") == TODO_CUSTOM_TYPE:
        details = message.get("details")
    else:
        return None
    try:
        return parse_todos(details.get("todos") if isinstance(details, dict) else None)
    except ValueError:
        return None  # a hand-edited entry does not count as a list


def latest_todos(messages: Iterable[dict[str, Any]]) -> tuple[TodoItem, ...] | None:
    """The last list among stored messages given newest first (None: no list was ever set)."""
    for message in messages:
        found = todos_in_message(message)
        if found is not None:
            return found
    return None


class TodoTool(Tool):
    name = TODO_TOOL
    label = "todo"
    description = (
        "Keep a visible to-do list for work with several steps. Each call replaces the whole list. "
        "Use it when a task needs three or more distinct steps or the user gives several tasks; skip it "
        "for a single small request. Mark one item in_progress before you start it and completed as "
        "soon as it is done; at most one item is in_progress at a time."
    )
    parameters = {
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "The whole list, in order",
                "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string", "description": "What to do, as a short imperative"},
                        "status": {"type": "string", "enum": list(STATUSES)},
                        "priority": {"type": "string", "enum": list(PRIORITIES)},
                    },
                    "required": ["content", "status"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["todos"],
        "additionalProperties": False,
    }
    prompt_snippet = "Keep a to-do list for multi-step work"
    read_only = True  # it changes nothing outside the conversation

    async def execute(self, call_id: str, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            items = parse_todos(args.get("todos"))
        except ValueError as exc:
            raise ToolError(f"Invalid to-do list: {exc}") from None
        return ToolOutput.text(format_todos(items), {"todos": [item.to_dict() for item in items]})
