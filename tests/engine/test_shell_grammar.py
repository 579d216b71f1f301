"""The bash grammar behind permission rules: whatever it calls literal, bash itself runs word for word."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atomic.core.permissions.shell_parse import parse_command

# Letters, and every character bash treats specially somewhere.
ALPHABET = "ab- $'\"\\`*?[]{}()~=;|&<>!#%^:,.\n\t/@+"


def words_bash_passes(command: str, folder: Path) -> list[str] | None:
    """What bash runs for `command`: each call of the functions `a` and `b` as its name then its
    arguments, all in one list (None if bash fails)."""
    script = (
        "a() { printf '%s\\0' a \"$@\"; }; b() { printf '%s\\0' b \"$@\"; }; "
        "trap 'printf \"%s\\0\" end' EXIT; " + command
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script], cwd=folder, capture_output=True, timeout=10,
        env={"PATH": "/usr/bin:/bin", "HOME": str(folder), "X": "expanded"},
    )
    if done.returncode != 0:
        return None
    out = [w.decode("utf-8", "replace") for w in done.stdout.split(b"\0")[:-1]]
    return out[:-1] if out and out[-1] == "end" else None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=ALPHABET, min_size=1, max_size=14))
def test_a_literal_command_is_exactly_what_bash_runs(tmp_path: Path, text: str) -> None:
    # Files for a glob to find, were one ever taken as literal.
    for name in ("a", "ab", "b-a"):
        (tmp_path / name).touch()
    command = "a " + text
    parsed = parse_command(command)
    if not parsed.literal or any(part.words[0] not in ("a", "b") for part in parsed.parts):
        return
    if "&" in text or "|" in text:
        return  # background jobs print in any order; a pipe swallows output and || skips the right side
    expected = [word for part in parsed.parts for word in part.words]
    assert words_bash_passes(command, tmp_path) == expected


def test_known_tricks_are_not_literal() -> None:
    for command in (
        "git status ${X:=$'\\x24(id)'} ${X@P}", "ls ${HOME:$'a[\\x24(id)]'}", "ls $'\\x41'", "ls $\"x\"",
        "ls a\\ b", "ls ~+", "ls !(x)", "X=1 ls", "ls <<< x", "ls 2>&1", "ls *", "ls a?", "ls [ab]", "ls {a,b}",
        "ls `id`", "ls $((1))", "ls <(id)", "ls >(id)", "ls &>x", "{ ls; }", "(ls)", "if ls; then ls; fi",
        "f() { ls; }", "! ls", "ls\\\n -a", "ls 'a'\"$X\"", "ls \\ ;",
    ):
        assert not parse_command(command).literal, command
