from __future__ import annotations

from pathlib import Path

from atomic.core.resources.skills import discover_skills, expand_skill, skills_prompt_block


def _skill(
    folder: Path, description: str | None = "Does things", name: str | None = None, body: str = "Steps"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    meta = []
    if name is not None:
        meta.append(f"name: {name}")
    if description is not None:
        meta.append(f"description: {description}")
    path = folder / "SKILL.md"
    path.write_text("---\n" + "\n".join(meta) + "\n---\n" + body + "\n")
    return path


def test_discovery_in_all_four_places_and_explicit(tmp_path: Path, agent_dir: Path) -> None:
    cwd = tmp_path / "proj"
    home = Path.home()  # the per-test HOME from conftest
    _skill(agent_dir / "skills" / "agent-skill")
    _skill(home / ".agents" / "skills" / "group" / "home-skill")  # found recursively
    _skill(cwd / ".atomic" / "skills" / "atomic-skill")
    _skill(cwd / ".agents" / "skills" / "agents-skill")
    explicit = _skill(tmp_path / "elsewhere" / "explicit-skill")

    skills, diagnostics = discover_skills(cwd, agent_dir, [explicit.parent])
    assert diagnostics == []
    assert [(s.name, s.location) for s in skills] == [
        ("agent-skill", "user"),
        ("home-skill", "user"),
        ("atomic-skill", "project"),
        ("agents-skill", "project"),
        ("explicit-skill", "path"),
    ]
    first = skills[0]
    assert first.path == agent_dir / "skills" / "agent-skill" / "SKILL.md"
    assert first.base_dir == first.path.parent
    assert first.description == "Does things"


def test_agents_skills_in_parents_up_to_git_root(tmp_path: Path, agent_dir: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    cwd = repo / "pkg"
    _skill(repo / ".agents" / "skills" / "repo-skill")
    _skill(tmp_path / ".agents" / "skills" / "outside-repo")
    skills, _ = discover_skills(cwd, agent_dir)
    assert [s.name for s in skills] == ["repo-skill"]


def test_skill_folder_is_not_searched_further(tmp_path: Path, agent_dir: Path) -> None:
    outer = _skill(agent_dir / "skills" / "outer")
    _skill(outer.parent / "inner")
    skills, _ = discover_skills(tmp_path, agent_dir)
    assert [s.name for s in skills] == ["outer"]


def test_missing_description_skipped_with_warning(tmp_path: Path, agent_dir: Path) -> None:
    _skill(agent_dir / "skills" / "vague", description=None)
    _skill(agent_dir / "skills" / "good")
    skills, diagnostics = discover_skills(tmp_path, agent_dir)
    assert [s.name for s in skills] == ["good"]
    assert len(diagnostics) == 1
    assert diagnostics[0].severity == "warning"
    assert "description" in diagnostics[0].message
    assert diagnostics[0].path == agent_dir / "skills" / "vague" / "SKILL.md"


def test_name_from_frontmatter_and_invalid_name_warning(tmp_path: Path, agent_dir: Path) -> None:
    _skill(agent_dir / "skills" / "folder-name", name="Bad_Name")
    skills, diagnostics = discover_skills(tmp_path, agent_dir)
    assert [s.name for s in skills] == ["Bad_Name"]  # still loaded: the name rule is a warning
    assert len(diagnostics) == 1 and "Bad_Name" in diagnostics[0].message


def test_duplicate_names_keep_first(tmp_path: Path, agent_dir: Path) -> None:
    first = _skill(agent_dir / "skills" / "dup", body="user body")
    _skill(tmp_path / ".atomic" / "skills" / "other-folder", name="dup", body="project body")
    skills, diagnostics = discover_skills(tmp_path, agent_dir)
    assert [(s.name, s.path) for s in skills] == [("dup", first)]
    assert len(diagnostics) == 1
    assert "already defined" in diagnostics[0].message


def test_same_folder_reached_twice_is_not_a_duplicate(agent_dir: Path) -> None:
    home = Path.home()
    _skill(home / ".agents" / "skills" / "once")
    # cwd == HOME: ~/.agents/skills and <cwd>/.agents/skills are the same folder.
    skills, diagnostics = discover_skills(home, agent_dir)
    assert [s.name for s in skills] == ["once"]
    assert diagnostics == []


def test_no_defaults_still_loads_explicit(tmp_path: Path, agent_dir: Path) -> None:
    _skill(agent_dir / "skills" / "hidden")
    explicit = _skill(tmp_path / "x" / "shown")
    skills, _ = discover_skills(tmp_path, agent_dir, [explicit], include_defaults=False)
    assert [(s.name, s.location) for s in skills] == [("shown", "path")]


def test_prompt_block_is_xml_escaped(tmp_path: Path, agent_dir: Path) -> None:
    _skill(agent_dir / "skills" / "esc", description='Use <tags> & "quotes"')
    _skill(agent_dir / "skills" / "manual-only", description="Hidden")
    manual = agent_dir / "skills" / "manual-only" / "SKILL.md"
    manual.write_text("---\ndescription: Hidden\ndisable-model-invocation: true\n---\nx")
    skills, _ = discover_skills(tmp_path, agent_dir)
    block = skills_prompt_block(skills)
    assert "read tool" in block
    assert "<available_skills>" in block and block.rstrip().endswith("</available_skills>")
    assert "<name>esc</name>" in block
    assert "<description>Use &lt;tags&gt; &amp; &quot;quotes&quot;</description>" in block
    assert f"<location>{agent_dir / 'skills' / 'esc' / 'SKILL.md'}</location>" in block
    assert "manual-only" not in block
    assert skills_prompt_block([]) == ""


def test_expand_skill(tmp_path: Path, agent_dir: Path) -> None:
    path = _skill(
        agent_dir / "skills" / "deploy", description="Deploy", body="Run ./deploy.sh\n\nThen check."
    )
    skills, _ = discover_skills(tmp_path, agent_dir)
    skill = skills[0]
    expected = (
        f'<skill name="deploy" location="{path}">\n'
        f"References are relative to {path.parent}.\n\n"
        "Run ./deploy.sh\n\nThen check.\n"
        "</skill>"
    )
    assert expand_skill(skill, "") == expected
    assert expand_skill(skill, "  to staging ") == expected + "\n\nto staging"
    # Edits made after discovery are used.
    path.write_text("---\ndescription: Deploy\n---\nNew steps")
    assert "New steps" in expand_skill(skill, "")
