"""A tool call's arguments checked against the tool's JSON schema, once, before anything sees them.

The tool runner calls `argument_errors` for every call (built-in, extension and MCP tools alike),
so a tool's `execute` gets arguments of the types its schema names and never checks them again.
The keywords understood are the ones tool schemas use: `type` (one or a list), `properties`,
`required`, `additionalProperties`, `items`, `enum`, `const`, `minimum` / `maximum` (and their
exclusive forms), `minLength` / `maxLength`, `minItems` / `maxItems`, `anyOf`, `oneOf`, `allOf`.
Any other keyword (`$ref`, `pattern`, `format`, ...) is not checked: the value passes, and a tool
that needs more checks it itself (an MCP server does). A schema that is itself malformed checks
nothing rather than failing the call. Why not the `jsonschema` package: docs/extensions.md, "Tools".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from atomic.core.tools.base import Tool

# How deep a schema or a value is followed: a hostile schema cannot recurse without end.
MAX_DEPTH = 32
MAX_ERRORS = 8

_TYPE_NAMES = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is(value: Any, type_name: str) -> bool:
    kind = _kind(value)
    if type_name == "integer":
        # 3.0 is an integer to JSON Schema; a float's own test avoids overflowing on a huge int.
        return kind == "number" and (isinstance(value, int) or value.is_integer())
    return kind == type_name


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _field(path: str) -> str:
    return path or "the arguments object"


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


class _Checker:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, text: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(text)

    def check(self, schema: Any, value: Any, path: str, depth: int) -> None:
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return
        if not self._type(schema, value, path):
            return  # the rest of the schema would only repeat that the type is wrong
        enum = schema.get("enum")
        if isinstance(enum, list) and enum and value not in enum:
            choices = ", ".join(_shown(choice) for choice in enum)
            self.fail(f"{_field(path)} must be one of {choices}, not {_shown(value)}")
        if "const" in schema and value != schema["const"]:
            self.fail(f"{_field(path)} must be {_shown(schema['const'])}, not {_shown(value)}")
        kind = _kind(value)
        if kind == "number":
            self._bounds(schema, value, path)
        elif kind == "string":
            self._length(schema, len(value), path, "character")
        elif kind == "array":
            self._length(schema, len(value), path, "item")
            items = schema.get("items")
            if isinstance(items, dict):
                for index, item in enumerate(value):
                    self.check(items, item, f"{path}[{index}]", depth + 1)
        elif kind == "object":
            self._object(schema, value, path, depth)
        self._combinations(schema, value, path, depth)

    def _type(self, schema: dict[str, Any], value: Any, path: str) -> bool:
        wanted = schema.get("type")
        names = [wanted] if isinstance(wanted, str) else wanted if isinstance(wanted, list) else []
        names = [name for name in names if name in _TYPE_NAMES]
        if not names or any(_is(value, name) for name in names):
            return True
        expected = " or ".join(_TYPE_NAMES[name] for name in names)
        self.fail(f"{_field(path)} must be {expected}, not {_shown(value)}")
        return False

    def _bounds(self, schema: dict[str, Any], value: float, path: str) -> None:
        for keyword, broken, words in (
            ("minimum", lambda limit: value < limit, "at least"),
            ("maximum", lambda limit: value > limit, "at most"),
            ("exclusiveMinimum", lambda limit: value <= limit, "more than"),
            ("exclusiveMaximum", lambda limit: value >= limit, "less than"),
        ):
            limit = schema.get(keyword)
            if _kind(limit) == "number" and broken(limit):
                self.fail(f"{_field(path)} must be {words} {_shown(limit)}, not {_shown(value)}")

    def _length(self, schema: dict[str, Any], size: int, path: str, unit: str) -> None:
        prefix = "Length" if unit == "character" else "Items"
        low, high = schema.get(f"min{prefix}"), schema.get(f"max{prefix}")
        if isinstance(low, int) and size < low:
            self.fail(f"{_field(path)} must have at least {low} {unit}{'s' if low != 1 else ''}" +
                      (" (it is empty)" if size == 0 else ""))
        if isinstance(high, int) and size > high:
            self.fail(f"{_field(path)} must have at most {high} {unit}{'s' if high != 1 else ''}, not {size}")

    def _object(self, schema: dict[str, Any], value: dict[str, Any], path: str, depth: int) -> None:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in value:
                self.fail(f"{_join(path, name)} is required")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in properties:
                self.check(properties[name], item, _join(path, name), depth + 1)
            elif extra is False:
                known = ", ".join(properties) or "none"
                self.fail(f"{_join(path, name)} is not an argument here (the known ones: {known})")
            elif isinstance(extra, dict):
                self.check(extra, item, _join(path, name), depth + 1)

    def _combinations(self, schema: dict[str, Any], value: Any, path: str, depth: int) -> None:
        for keyword in ("anyOf", "oneOf"):
            options = schema.get(keyword)
            if not isinstance(options, list) or not options:
                continue
            matching = sum(1 for option in options if not argument_errors(option, value, path, depth + 1))
            if not matching:
                self.fail(f"{_field(path)} matches none of the forms its schema allows, not {_shown(value)}")
            elif keyword == "oneOf" and matching > 1:
                self.fail(f"{_field(path)} matches more than one of the forms its schema allows (oneOf)")
        all_of = schema.get("allOf")
        for option in all_of if isinstance(all_of, list) else []:
            self.check(option, value, path, depth + 1)


def argument_errors(schema: Any, value: Any, path: str = "", depth: int = 0) -> list[str]:
    """What is wrong with `value` under `schema`, one line per problem naming the field; [] when valid."""
    checker = _Checker()
    try:
        checker.check(schema, value, path, depth)
    except (TypeError, ValueError, RecursionError):  # a schema malformed in a way not foreseen
        return []
    return checker.errors


def without_null_options(schema: Any, args: dict[str, Any]) -> dict[str, Any]:
    """`args` without the optional arguments given as null: models often send `"limit": null` for
    "not given", and a tool takes an absent argument's default. A null the schema allows stays."""
    if not isinstance(schema, dict) or None not in args.values():
        return args
    required = schema.get("required")
    required = required if isinstance(required, list) else []
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    return {
        name: value
        for name, value in args.items()
        if value is not None or name in required or (name in properties and not argument_errors(properties[name], None))
    }


def invalid_arguments_text(tool_name: str, errors: list[str]) -> str:
    """The error result the model reads for arguments its schema refuses."""
    if len(errors) == 1:
        return f"Invalid arguments for {tool_name}: {errors[0]}."
    return f"Invalid arguments for {tool_name}:\n" + "\n".join(f"- {error}" for error in errors)


def check_arguments(tool: Tool, args: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """A call's arguments as the tool will get them (`prepare_arguments`, optional nulls dropped)
    and the error result for them, None when the schema accepts them."""
    args = tool.prepare_arguments(args)
    if not tool.schema_checked:
        return args, None
    args = without_null_options(tool.parameters, args)
    errors = argument_errors(tool.parameters, args)
    return args, invalid_arguments_text(tool.name, errors) if errors else None
