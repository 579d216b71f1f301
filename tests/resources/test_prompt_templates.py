from __future__ import annotations

from pathlib import Path

import pytest

from atomic.core.resources.prompt_templates import (
    discover_prompt_templates,
    expand_template,
    parse_command_args,
)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_discovery_locations_and_metadata(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "proj"
    _write(
        agent_dir / "prompts" / "review.md",
        "---\ndescription: Review code\nargument-hint: <file>\n---\nReview $1",
    )
    _write(cwd / ".atomic" / "prompts" / "fix-tests.md", "\n\n  Fix the failing tests  \nmore\n")
    _write(cwd / ".atomic" / "prompts" / "notes.txt", "not a template")
    _write(cwd / ".atomic" / "prompts" / "deep" / "nested.md", "not discovered: non-recursive")
    explicit_file = _write(tmp_path / "extra" / "one.md", "One")
    _write(tmp_path / "folder" / "two.md", "Two")

    templates, diagnostics = discover_prompt_templates(
        cwd, agent_dir, [str(explicit_file), tmp_path / "folder"]
    )
    assert diagnostics == []
    by_name = {t.name: t for t in templates}
    assert list(by_name) == ["review", "fix-tests", "one", "two"]

    review = by_name["review"]
    assert (review.location, review.description, review.argument_hint) == ("user", "Review code", "<file>")
    assert review.body == "Review $1"
    assert review.path == (agent_dir / "prompts" / "review.md").resolve()

    fix = by_name["fix-tests"]
    assert fix.location == "project"
    assert fix.description == "Fix the failing tests"  # first non-empty body line, trimmed
    assert fix.argument_hint is None
    assert by_name["one"].location == by_name["two"].location == "path"


def test_no_defaults_keeps_explicit_paths_and_relative_paths_use_cwd(tmp_path: Path, agent_dir: Path) -> None:
    _write(agent_dir / "prompts" / "global.md", "g")
    _write(tmp_path / "mine.md", "m")
    templates, _ = discover_prompt_templates(tmp_path, agent_dir, ["mine.md"], include_defaults=False)
    assert [t.name for t in templates] == ["mine"]


def test_duplicates_and_missing_paths_are_reported(tmp_path: Path, agent_dir: Path) -> None:
    _write(agent_dir / "prompts" / "same.md", "user version")
    _write(tmp_path / ".atomic" / "prompts" / "same.md", "project version")
    templates, diagnostics = discover_prompt_templates(tmp_path, agent_dir, ["nope.md"])
    assert [(t.name, t.body) for t in templates] == [("same", "user version")]
    messages = [d.message for d in diagnostics]
    assert any("already defined" in m for m in messages)
    assert any("does not exist" in m for m in messages)


ARGS = ["a", "b c", "d", "e"]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("$1|$2|$4", "a|b c|e"),
        ("$5 and $9 missing", " and  missing"),
        ("all: $@", "all: a b c d e"),
        ("all: $ARGUMENTS", "all: a b c d e"),
        ("${@:2}", "b c d e"),
        ("${@:2:2}", "b c d"),
        ("${@:4:10}", "e"),
        ("${@:9}", ""),
        ("${@:1:0}", ""),
        ("$1$2", "ab c"),
        ("no placeholders", "no placeholders"),
    ],
)
def test_expand_template_argument_forms(body: str, expected: str) -> None:
    assert expand_template(body, ARGS) == expected


def test_expand_with_no_args_and_no_reexpansion() -> None:
    assert expand_template("x $1 $@ ${@:1} y", []) == "x    y"
    # An argument containing a placeholder is inserted literally, not expanded again.
    assert expand_template("$1 / $2", ["$2", "two"]) == "$2 / two"
    assert expand_template("$10", [str(i) for i in range(1, 11)]) == "10"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("one two  three", ["one", "two", "three"]),
        ('"two words" single', ["two words", "single"]),
        ("'it is' \"x y\"", ["it is", "x y"]),
        ('pre"fix suf"fix', ["prefix suffix"]),
        ('"" empty', ["", "empty"]),
        ("  lead\ttab\nnewline ", ["lead", "tab", "newline"]),
        ('"unterminated quote', ["unterminated quote"]),
    ],
)
def test_parse_command_args(text: str, expected: list[str]) -> None:
    assert parse_command_args(text) == expected
