"""Permission rules from settings: allow, ask and deny in Claude Code's form, and what they hide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atomic.core.permissions.rules import RuleError, glob_regex, parse_rule
from tests.engine.test_permission_attacks import Approver, calls, results, run, text_of


def user_rules(agent_dir: Path, **lists: list[str]) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"permissions": lists}))


def project_rules(workdir: Path, **lists: list[str]) -> None:
    (workdir / ".atomic").mkdir(exist_ok=True)
    (workdir / ".atomic" / "settings.json").write_text(json.dumps({"permissions": lists}))


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("Bash(git status)", "git status", True),
        ("Bash(git status)", "git status --short", False),
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test --watch", True),
        ("Bash(npm run test:*)", "npm run testing", False),
        ("Bash(npm run test:*)", "npm run build", False),
    ],
)
def test_bash_rules_match_whole_words(rule: str, command: str, matches: bool) -> None:
    assert parse_rule(rule).matches_words(tuple(command.split())) is matches


def test_path_globs() -> None:
    assert glob_regex("/p/src/**").fullmatch("/p/src/a/b.py") and glob_regex("/p/src/**").fullmatch("/p/src")
    assert not glob_regex("/p/src/*").fullmatch("/p/src/a/b.py")
    assert glob_regex("/p/**/.env").fullmatch("/p/.env") and glob_regex("/p/**/.env").fullmatch("/p/a/b/.env")
    rule = parse_rule("Read(./.env)")
    assert rule.matches_path(Path("/p/.env"), Path("/p")) and not rule.matches_path(Path("/p/x/.env"), Path("/p"))
    with pytest.raises(RuleError):
        parse_rule("Bash(unclosed")


async def test_an_allow_rule_skips_the_question_in_ask_mode(make_session, workdir: Path, agent_dir: Path) -> None:
    user_rules(agent_dir, allow=["Bash(touch:*)", f"Edit({workdir}/src/**)"])
    approver = Approver("reject_once")
    await run(
        make_session,
        calls(("bash", {"command": "touch made.txt"}), ("write", {"path": "src/a.py", "content": "x"}),
              ("write", {"path": "docs/b.md", "content": "y"})),
        approver,
        permission_mode="ask",
    )
    assert (workdir / "made.txt").exists() and (workdir / "src" / "a.py").exists()
    assert [r.args.get("path") for r in approver.asked] == ["docs/b.md"]


async def test_a_chain_runs_unasked_only_when_every_part_is_allowed(make_session, workdir: Path, agent_dir: Path) -> None:
    user_rules(agent_dir, allow=["Bash(touch:*)", "Bash(ls:*)"])
    approver = Approver("reject_once")
    await run(
        make_session,
        calls(("bash", {"command": "ls && touch one.txt"}), ("bash", {"command": "touch two.txt && rm one.txt"})),
        approver,
        permission_mode="ask",
    )
    assert (workdir / "one.txt").exists() and not (workdir / "two.txt").exists()
    assert [r.args["command"] for r in approver.asked] == ["touch two.txt && rm one.txt"]


async def test_deny_beats_allow_and_a_deny_on_one_part_denies_the_chain(
    make_session, workdir: Path, agent_dir: Path
) -> None:
    user_rules(agent_dir, allow=["Bash"], deny=["Bash(rm:*)"])
    (workdir / "keep.txt").write_text("x")
    session = await run(
        make_session,
        calls(("bash", {"command": "ls | sudo rm keep.txt"}), ("bash", {"command": "/bin/rm keep.txt"})),
        permission_mode="ask",
    )
    for result in results(session):
        assert result.is_error and "Denied by the permission rule Bash(rm:*)" in text_of(result)
    assert (workdir / "keep.txt").exists()


async def test_a_command_a_deny_rule_cannot_read_asks_even_in_yolo(make_session, workdir: Path, agent_dir: Path) -> None:
    user_rules(agent_dir, deny=["Bash(rm:*)"])
    (workdir / "keep.txt").write_text("x")
    approver = Approver("reject_once")
    await run(make_session, calls(("bash", {"command": "$(echo rm) keep.txt"})), approver, permission_mode="yolo")
    assert (workdir / "keep.txt").exists() and len(approver.asked) == 1


async def test_an_ask_rule_asks_even_in_yolo(make_session, workdir: Path, agent_dir: Path) -> None:
    user_rules(agent_dir, ask=["Bash(git push:*)"])
    approver = Approver("reject_once")
    await run(make_session, calls(("bash", {"command": "git push origin main"})), approver, permission_mode="yolo")
    assert [r.args["command"] for r in approver.asked] == ["git push origin main"]


async def test_mcp_server_rules_cover_all_its_tools(make_session, agent_dir: Path) -> None:
    user_rules(agent_dir, deny=["mcp__evil"])
    session = await run(make_session, calls(("mcp__evil__wipe", {})), permission_mode="yolo")
    assert "Denied by the permission rule mcp__evil" in text_of(results(session)[0])


async def test_project_read_deny_hides_files_from_every_reading_tool(make_session, workdir: Path) -> None:
    project_rules(workdir, deny=["Read(./.env)", "Read(secrets/**)"])
    (workdir / ".env").write_text("API=hidden-value\n")
    (workdir / "secrets").mkdir()
    (workdir / "secrets" / "k.txt").write_text("hidden-value\n")
    (workdir / "open.txt").write_text("hidden-value is mentioned here\n")
    session = await run(
        make_session,
        calls(("read", {"path": ".env"}), ("grep", {"pattern": "hidden-value"}), ("find", {"pattern": "*"}),
              ("ls", {}), ("read", {"path": "secrets/k.txt"})),
        permission_mode="yolo",
        tools=["read", "grep", "find", "ls"],
        approve=True,
    )
    read_env, grep, find, ls, read_secret = results(session)
    assert read_env.is_error and "Read(./.env)" in text_of(read_env)
    assert "open.txt" in text_of(grep) and ".env" not in text_of(grep) and "k.txt" not in text_of(grep)
    assert ".env" not in text_of(find) and "k.txt" not in text_of(find) and "open.txt" in text_of(find)
    assert ".env" not in text_of(ls) and "secrets" not in text_of(ls)
    assert read_secret.is_error and "Read(secrets/**)" in text_of(read_secret)


async def test_always_saves_to_the_user_file_while_the_project_is_untrusted(
    make_session, workdir: Path, agent_dir: Path
) -> None:
    approver = Approver("allow_always")
    await run(make_session, calls(("bash", {"command": "make build"})), approver, permission_mode="ask", approve=False)
    saved = json.loads((agent_dir / "settings.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(make build:*)"]
    assert not (workdir / ".atomic").exists()


async def test_an_unreadable_rule_is_reported_and_skipped(make_session, agent_dir: Path) -> None:
    user_rules(agent_dir, deny=["Bash(rm:*", "Bash(curl:*)"], allow="Bash")  # type: ignore[arg-type]
    session, _provider, _rec = await make_session([])
    assert any("Bash(rm:*" in w for w in session.startup_warnings)
    assert any("permissions.allow" in w for w in session.startup_warnings)
    assert [r.text for r in session.permissions.all_rules().deny] == ["Bash(curl:*)"]
