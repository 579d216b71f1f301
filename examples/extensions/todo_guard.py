"""Example Atomic extension: a `todo` tool, a `/todos` command and a guard against `rm -rf /`.

Try it:

    atomic -e examples/extensions/todo_guard.py
    atomic -e examples/extensions/todo_guard.py --todo-limit 5

or copy it to ~/.atomic/agent/extensions/ (all projects) or .atomic/extensions/ (this project).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from atomic.core.tools.base import ToolError, ToolOutput

# `rm` with both -r and -f (any spelling) aimed at /, ~ or $HOME, alone or followed by a wildcard.
DANGEROUS_RM = re.compile(
    r"\brm\s+(?=[^;&|]*(?:-[a-zA-Z]*r|--recursive))(?=[^;&|]*(?:-[a-zA-Z]*f|--force))[^;&|]*?"
    r"(?:\s|^)(?:/|~|\$HOME)/?\*?(?=\s|$|;|&|\|)"
)


class TodoArgs(BaseModel):
    action: Literal["add", "list", "done"] = Field(description="add a todo, list them, or mark one done")
    text: str | None = Field(default=None, description="the todo text (for add)")
    id: int | None = Field(default=None, description="the todo number (for done)")


def activate(atomic: Any) -> None:
    todos: list[dict[str, Any]] = []
    atomic.register_flag("todo-limit", default=50, description="most open todos the tool accepts")

    def restore(_payload: dict[str, Any]) -> None:
        # State lives in the session file as `custom` entries, so it follows forks and resumes.
        todos.clear()
        entries = atomic.custom_entries("todos")
        if entries:
            todos.extend(entries[-1]["data"]["items"])

    def save() -> None:
        atomic.append_entry("todos", {"items": list(todos)})

    def render() -> str:
        if not todos:
            return "No todos."
        return "\n".join(f"{t['id']}. [{'x' if t['done'] else ' '}] {t['text']}" for t in todos)

    async def todo(call_id: str, args: TodoArgs, ctx: Any) -> ToolOutput:
        if args.action == "add":
            if not args.text:
                raise ToolError("`text` is required to add a todo")
            if sum(not t["done"] for t in todos) >= atomic.get_flag("todo-limit"):
                raise ToolError("Too many open todos; finish some first")
            todos.append({"id": len(todos) + 1, "text": args.text, "done": False})
            save()
        elif args.action == "done":
            match = next((t for t in todos if t["id"] == args.id), None)
            if match is None:
                raise ToolError(f"No todo number {args.id}")
            match["done"] = True
            save()
        return ToolOutput.text(render(), details={"todos": list(todos)})

    atomic.register_tool(
        "todo",
        "Keep a todo list for the current task. Actions: add (text), list, done (id).",
        TodoArgs,
        todo,
        label="Todo",
        prompt_snippet="Track multi-step work in a todo list",
    )

    def todos_command(args: str, ctx: Any) -> None:
        if args.strip() == "clear":
            todos.clear()
            save()
            ctx.notify("Todos cleared.")
            return
        ctx.notify(render())

    atomic.register_command(
        "todos",
        todos_command,
        description="Show the todo list (/todos clear empties it)",
        complete=lambda prefix: [word for word in ("clear",) if word.startswith(prefix)],
    )

    def guard(payload: dict[str, Any]) -> dict[str, Any] | None:
        if payload["toolName"] != "bash":
            return None
        command = str(payload["input"].get("command", ""))
        if DANGEROUS_RM.search(command):
            return {"block": True, "reason": "Blocked by todo_guard: this command would delete your whole disk or home."}
        return None

    atomic.on("session_start", restore)
    atomic.on("tool_call", guard)
    restore({})
