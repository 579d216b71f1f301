"""Tool arguments are checked once, in the tool runner, against the tool's schema: a bad argument
gets one error result naming the field, and the tool never runs with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atomic.core.tools.schema_check import argument_errors, without_null_options
from tests.engine.test_permission_attacks import calls, results, run, text_of


async def one_result(make_session, name: str, call: dict[str, Any]) -> tuple[str, bool]:
    session = await run(make_session, [{"toolCalls": [{"name": name, "id": "c0", **call}]}, {"text": "done"}],
                        permission_mode="yolo")
    result = results(session)[0]
    return text_of(result), result.is_error


@pytest.mark.parametrize(("name", "arguments", "text"), [
    ("read", {"path": 7}, "Invalid arguments for read: path must be a string, not 7."),
    ("read", {}, "Invalid arguments for read: path is required."),
    ("read", {"path": "a.txt", "offset": 2.5}, "Invalid arguments for read: offset must be an integer, not 2.5."),
    ("read", {"path": "a.txt", "limit": 0}, "Invalid arguments for read: limit must be at least 1, not 0."),
    ("bash", {"command": "echo hi", "timeout": -1}, "Invalid arguments for bash: timeout must be more than 0, not -1."),
    ("bash", {"command": "echo hi", "sandbox": "no"},
     'Invalid arguments for bash: sandbox must be true or false, not "no".'),
    ("edit", {"path": "a.txt", "edits": [{"oldText": "a"}]}, "Invalid arguments for edit: edits[0].newText is required."),
    ("todo", {"todos": [{"content": "x", "status": "done"}]},
     'Invalid arguments for todo: todos[0].status must be one of "pending", "in_progress", "completed", not "done".'),
    ("write", {"path": "a.txt", "content": "x", "mode": 7},
     "Invalid arguments for write: mode is not an argument here (the known ones: path, content)."),
    ("task", {"description": "x", "prompt": ""},
     "Invalid arguments for task: prompt must have at least 1 character (it is empty)."),
])
async def test_a_bad_argument_is_one_error_result_naming_it(
    make_session, workdir: Path, name: str, arguments: dict[str, Any], text: str
) -> None:
    (workdir / "a.txt").write_text("a b c\n")
    result, is_error = await one_result(make_session, name, {"arguments": arguments})
    assert (result, is_error) == (text, True)
    assert (workdir / "a.txt").read_text() == "a b c\n"


async def test_every_problem_is_listed_in_the_one_result(make_session) -> None:
    result, _ = await one_result(make_session, "read", {"arguments": {"offset": "ten", "extra": 1}})
    assert result.splitlines() == [
        "Invalid arguments for read:",
        "- path is required",
        '- offset must be an integer, not "ten"',
        "- extra is not an argument here (the known ones: path, offset, limit)",
    ]


@pytest.mark.parametrize(("streamed", "text"), [
    ('{"path": "a', 'Invalid arguments for read: the arguments are not valid JSON: {"path": "a'),
    ('["a.txt"]', 'Invalid arguments for read: the arguments must be a JSON object, not ["a.txt"]'),
])
async def test_arguments_that_cannot_be_read_are_said_so(make_session, streamed: str, text: str) -> None:
    session = await run(make_session, [{"toolCalls": [{"name": "read", "argumentsText": streamed}]}, {"text": "ok"}])
    result = results(session)[0]
    assert (text_of(result), result.is_error) == (text, True)
    call = session.context_messages()[1].content[0]
    assert call.arguments == {} and "__invalid_json__" not in str(session.context_messages())


async def test_optional_nulls_count_as_not_given_and_the_older_edit_form_still_edits(
    make_session, workdir: Path
) -> None:
    (workdir / "a.txt").write_text("one two\n")
    session = await run(make_session, calls(
        ("read", {"path": "a.txt", "offset": None, "limit": None}),
        ("edit", {"path": "a.txt", "oldText": "one", "newText": "1"}),
        ("edit", {"path": "a.txt", "edits": '[{"oldText": "two", "newText": "2"}]'}),
    ), permission_mode="yolo")
    assert [r.is_error for r in results(session)] == [False, False, False]
    assert (workdir / "a.txt").read_text() == "1 2\n"


def test_the_checker_follows_the_schema_keywords_tools_use() -> None:
    assert argument_errors({"type": "integer"}, 3.0) == []
    assert argument_errors({"type": "integer"}, 10**400) == []
    assert argument_errors({"type": "number"}, True) == ["the arguments object must be a number, not true"]
    assert argument_errors({"type": ["string", "null"]}, None) == []
    assert argument_errors({"anyOf": [{"type": "string"}, {"type": "null"}]}, 3) == [
        "the arguments object matches none of the forms its schema allows, not 3"
    ]
    assert argument_errors({"oneOf": [{"type": "number"}, {"type": "integer"}]}, 2) == [
        "the arguments object matches more than one of the forms its schema allows (oneOf)"
    ]
    nested = {"type": "object", "additionalProperties": {"type": "array", "items": {"const": 1}, "maxItems": 1}}
    assert argument_errors(nested, {"a": [1, 2]}) == [
        "a must have at most 1 item, not 2", "a[1] must be 1, not 2",
    ]
    # Keywords it does not know are not checked.
    assert argument_errors({"type": "string", "pattern": "^x$", "format": "uri"}, "y") == []


@pytest.mark.parametrize("schema", [
    {"type": 5, "properties": [], "required": "path", "items": 3, "enum": "x", "minimum": "1"},
    {"properties": {"a": {"minLength": "2", "anyOf": "x", "allOf": [None, 3]}}},
    {"$ref": "#/$defs/loop", "$defs": {"loop": {"$ref": "#/$defs/loop"}}},
])
def test_a_malformed_schema_checks_nothing_and_never_raises(schema: dict[str, Any]) -> None:
    assert argument_errors(schema, {"a": "b"}) == []


def test_a_deep_value_or_schema_does_not_recurse_without_end() -> None:
    schema: dict[str, Any] = {"type": "array"}
    for _ in range(200):
        schema = {"type": "array", "items": schema}
    value: list[Any] = []
    for _ in range(200):
        value = [value]
    assert argument_errors(schema, value) == []


def test_null_options_the_schema_allows_stay() -> None:
    schema = {"properties": {"a": {"type": "number"}, "b": {"type": ["number", "null"]}}, "required": ["c"]}
    assert without_null_options(schema, {"a": None, "b": None, "c": None}) == {"b": None, "c": None}
