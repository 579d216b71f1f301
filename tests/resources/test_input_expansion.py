from __future__ import annotations

from pathlib import Path

from atomic.core.records import CommandInfo
from atomic.core.resources.input_expansion import ResourceCatalog, expand_input


def _setup(tmp_path: Path, agent_dir: Path) -> Path:
    cwd = tmp_path / "proj"
    (cwd / ".atomic" / "prompts").mkdir(parents=True)
    (cwd / ".atomic" / "prompts" / "fix-tests.md").write_text(
        "---\ndescription: Fix failing tests\n---\nFix $1 then ${@:2}"
    )
    skill = agent_dir / "skills" / "brave-search"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\ndescription: Web search via Brave API\n---\nSearch well.")
    return cwd


def test_commands_items(tmp_path: Path, agent_dir: Path) -> None:
    cwd = _setup(tmp_path, agent_dir)
    catalog = ResourceCatalog(cwd, agent_dir)
    assert catalog.diagnostics == []
    assert catalog.commands() == [
        CommandInfo(
            name="fix-tests",
            description="Fix failing tests",
            source="prompt",
            location="project",
            path=str((cwd / ".atomic" / "prompts" / "fix-tests.md").resolve()),
        ),
        CommandInfo(
            name="skill:brave-search",
            description="Web search via Brave API",
            source="skill",
            location="user",
            path=str(agent_dir / "skills" / "brave-search" / "SKILL.md"),
        ),
    ]


def test_expansion(tmp_path: Path, agent_dir: Path) -> None:
    cwd = _setup(tmp_path, agent_dir)
    catalog = ResourceCatalog(cwd, agent_dir)
    assert catalog.expand('/fix-tests "unit tests" fast please') == "Fix unit tests then fast please"
    assert catalog.expand("/fix-tests") == "Fix  then "
    expanded = catalog.expand("/skill:brave-search find python docs")
    assert expanded.startswith('<skill name="brave-search" location=')
    assert "Search well.\n</skill>\n\nfind python docs" in expanded
    for unchanged in ["/unknown thing", "/skill:nope x", "plain text /fix-tests", "/", "/ fix-tests", ""]:
        assert catalog.expand(unchanged) == unchanged
    assert expand_input("/fix-tests a", [], []) == "/fix-tests a"


def test_disabling_discovery_keeps_explicit_paths(tmp_path: Path, agent_dir: Path) -> None:
    cwd = _setup(tmp_path, agent_dir)
    (tmp_path / "own.md").write_text("Own template")
    own_skill = tmp_path / "own-skill"
    own_skill.mkdir()
    (own_skill / "SKILL.md").write_text("---\ndescription: Mine\n---\nx")
    catalog = ResourceCatalog(
        cwd,
        agent_dir,
        prompt_template_paths=[tmp_path / "own.md"],
        skill_paths=[own_skill],
        no_prompt_templates=True,
        no_skills=True,
    )
    assert [(c.name, c.location) for c in catalog.commands()] == [
        ("own", "path"),
        ("skill:own-skill", "path"),
    ]


def test_reload_picks_up_new_files(tmp_path: Path, agent_dir: Path) -> None:
    cwd = _setup(tmp_path, agent_dir)
    catalog = ResourceCatalog(cwd, agent_dir)
    (agent_dir / "prompts").mkdir()
    (agent_dir / "prompts" / "new.md").write_text("New")
    assert catalog.template("new") is None
    catalog.reload()
    assert catalog.template("new") is not None
    assert catalog.skill("brave-search") is not None
