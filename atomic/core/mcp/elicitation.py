"""A server's question to the user (MCP elicitation, form mode) through the extension UI's dialogs.

Each field of the requested schema is one dialog: a choice for an enum, yes/no for a boolean, a
line of text otherwise (numbers are parsed). The answers are checked against the schema (types,
required fields, enum, lengths, ranges, formats) with `jsonschema`, which the `mcp` SDK brings;
a field that fails is asked again with the reason, up to three times. Cancelling a dialog, a
dialog that times out, or no frontend that can ask (print mode) answers `cancel`; an empty form
is one yes/no question, and "no" answers `decline`. URL mode is not supported and says so.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from atomic.core.extensions.ui import DEFAULT_DIALOG_TIMEOUT_S

Action = Literal["accept", "decline", "cancel"]
Value = str | int | float | bool | list[str] | None
ATTEMPTS = 3


class Dialogs(Protocol):
    """The extension UI's dialogs (extensions/ui.py `ExtensionUI`)."""

    async def confirm(self, title: str, message: str, *, timeout: float | None = ...) -> bool: ...
    async def select(self, title: str, options: list[str], *, timeout: float | None = ...) -> str | None: ...
    async def input(self, title: str, placeholder: str = "", *, timeout: float | None = ...) -> str | None: ...


@dataclass(frozen=True)
class ElicitAnswer:
    action: Action
    content: dict[str, Value] | None = None


class _Cancelled(Exception):
    pass


def _choices(prop: dict[str, Any]) -> list[str] | None:
    if isinstance(prop.get("enum"), list):
        return [str(v) for v in prop["enum"]]
    options = prop.get("oneOf") or prop.get("anyOf")
    if isinstance(options, list) and all(isinstance(o, dict) and "const" in o for o in options):
        return [str(o["const"]) for o in options]
    return None


def _parse(kind: object, text: str) -> Value:
    if kind == "integer":
        return int(text.strip())
    if kind == "number":
        number = float(text.strip())
        return int(number) if number.is_integer() else number
    return text


def _problem(content: dict[str, Value], schema: dict[str, Any], field: str) -> str | None:
    """The schema's complaint about `field` in `content` (None when it is fine)."""
    import jsonschema

    checker = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    for error in checker.iter_errors(content):
        if list(error.path)[:1] == [field] or (error.validator == "required" and f"'{field}'" in error.message):
            return str(error.message)
    return None


async def _ask_field(
    dialogs: Dialogs, title: str, name: str, prop: dict[str, Any], required: bool, timeout: float | None,
    problem: str | None,
) -> tuple[bool, Value]:
    """(given, value) for one field; raises _Cancelled."""
    label = str(prop.get("title") or name)
    about = f" - {prop['description']}" if prop.get("description") else ""
    optional = "" if required else " (optional: leave empty to skip)"
    heading = f"{title}\n{label}{about}{optional}" + (f"\n{problem}" if problem else "")
    choices = _choices(prop)
    kind = prop.get("type")
    if choices is not None:
        options = choices if required else [*choices, "(skip)"]
        picked = await dialogs.select(heading, options, timeout=timeout)
        if picked is None:
            raise _Cancelled()
        return (picked != "(skip)", picked if picked != "(skip)" else None)
    if kind == "boolean":
        return True, await dialogs.confirm(heading, label, timeout=timeout)
    default = prop.get("default")
    text = await dialogs.input(heading, "" if default is None else str(default), timeout=timeout)
    if text is None:
        raise _Cancelled()
    if not text.strip() and not required:
        return False, None
    try:
        return True, _parse(kind, text)
    except ValueError:
        return True, text  # the schema check names the type that was expected


async def elicit_form(
    dialogs: Dialogs,
    server: str,
    message: str,
    schema: dict[str, Any],
    timeout: float | None = DEFAULT_DIALOG_TIMEOUT_S,
) -> ElicitAnswer:
    title = f"MCP server {server} asks: {message}"
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    required = set(schema.get("required") or [])
    if not properties:
        agreed = await dialogs.confirm(title, message, timeout=timeout)
        return ElicitAnswer("accept", {}) if agreed else ElicitAnswer("decline")
    content: dict[str, Value] = {}
    try:
        for name, raw in properties.items():
            prop = raw if isinstance(raw, dict) else {}
            problem: str | None = None
            for _attempt in range(ATTEMPTS):
                given, value = await _ask_field(dialogs, title, name, prop, name in required, timeout, problem)
                if given:
                    content[name] = value
                else:
                    content.pop(name, None)
                problem = _problem(content, schema, name)
                if problem is None:
                    break
            else:
                return ElicitAnswer("cancel")
    except _Cancelled:
        return ElicitAnswer("cancel")
    return ElicitAnswer("accept", content)


def elicitation_handler(
    sdk: Any, dialogs: Callable[[], Dialogs | None], server: str
) -> Callable[[Any, Any], Awaitable[Any]]:
    """The SDK's `elicitation_callback` for one server."""
    types = sdk.types

    async def handle(_context: Any, params: Any) -> Any:
        if params.mode != "form":
            return types.ErrorData(code=types.INVALID_PARAMS, message="URL elicitation is not supported by Atomic")
        ui = dialogs()
        if ui is None:
            return types.ElicitResult(action="cancel")
        answer = await elicit_form(ui, server, params.message, dict(params.requested_schema))
        return types.ElicitResult(action=answer.action, content=answer.content)

    return handle
