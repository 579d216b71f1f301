from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

from atomic.core.resources.context_files import ContextFile
from atomic.core.resources.skills import Skill
from atomic.core.resources.system_prompt import (
    build_system_prompt,
    discover_system_files,
    read_text_or_file,
)

TOOLS = [
    ("read", "Read file contents"),
    ("bash", "Run shell commands"),
    ("edit", "Replace exact text in a file"),
    ("write", "Create or overwrite files"),
    ("grep", "Search file contents"),
]
DATE = datetime.date(2025, 3, 9)


def _skill(tmp_path: Path) -> Skill:
    path = tmp_path / "skills" / "lint" / "SKILL.md"
    return Skill("lint", "Lint <code>", path, path.parent, "user", "body")


def _build(cwd: Path, agent_dir: Path, **overrides: Any) -> str:
    options: dict[str, Any] = {
        "cwd": cwd,
        "agent_dir": agent_dir,
        "tools": TOOLS,
        "context_files": [],
        "skills": [],
        "custom_prompt": None,
        "append_prompts": [],
        "date": DATE,
        "read_tool_active": True,
    }
    options.update(overrides)
    return build_system_prompt(**options)


def test_default_prompt_contents(tmp_path: Path, agent_dir: Path) -> None:
    context = [ContextFile(tmp_path / "AGENTS.md", "Use tabs.\n")]
    prompt = _build(tmp_path, agent_dir, context_files=context, skills=[_skill(tmp_path)])
    assert prompt.startswith("You are Atomic")
    assert "Available tools:\n- read: Read file contents\n- bash: Run shell commands\n" in prompt
    assert "- grep: Search file contents" in prompt
    assert "Prefer grep over bash" in prompt
    assert "Be concise" in prompt
    assert (
        f"# Project Context\n\nProject-specific instructions and guidelines:\n\n## {tmp_path / 'AGENTS.md'}\n\nUse tabs."
        in prompt
    )
    assert "<available_skills>" in prompt and "<description>Lint &lt;code&gt;</description>" in prompt
    assert prompt.endswith(f"Current date: 2025-03-09\nCurrent working directory: {tmp_path}")
    # Order: tools, project context, skills, date.
    assert (
        prompt.index("Available tools")
        < prompt.index("# Project Context")
        < prompt.index("<available_skills>")
    )
    assert prompt.index("<available_skills>") < prompt.index("Current date")


def test_bash_only_guideline_and_no_tools(tmp_path: Path, agent_dir: Path) -> None:
    bash_only = _build(tmp_path, agent_dir, tools=[("bash", "Run shell commands")])
    assert "Use bash for file operations" in bash_only
    assert "Prefer" not in bash_only
    assert "no tools are available" in _build(tmp_path, agent_dir, tools=[])


def test_skills_only_when_read_tool_active(tmp_path: Path, agent_dir: Path) -> None:
    prompt = _build(tmp_path, agent_dir, skills=[_skill(tmp_path)], read_tool_active=False)
    assert "available_skills" not in prompt
    assert "available_skills" not in _build(tmp_path, agent_dir, skills=[])
    assert "# Project Context" not in prompt


def test_system_md_precedence(tmp_path: Path, agent_dir: Path) -> None:
    assert discover_system_files(tmp_path, agent_dir) == (None, None)
    (agent_dir / "SYSTEM.md").write_text("GLOBAL SYSTEM")
    (agent_dir / "APPEND_SYSTEM.md").write_text("GLOBAL APPEND")
    assert discover_system_files(tmp_path, agent_dir) == (
        agent_dir / "SYSTEM.md",
        agent_dir / "APPEND_SYSTEM.md",
    )
    prompt = _build(tmp_path, agent_dir)
    assert prompt.startswith("GLOBAL SYSTEM\n\nGLOBAL APPEND\n\n")
    assert "You are Atomic" not in prompt and "Available tools" not in prompt

    project = tmp_path / ".atomic"
    project.mkdir()
    (project / "SYSTEM.md").write_text("PROJECT SYSTEM")
    # A project's own files count only once the project is trusted.
    assert discover_system_files(tmp_path, agent_dir) == (agent_dir / "SYSTEM.md", agent_dir / "APPEND_SYSTEM.md")
    assert discover_system_files(tmp_path, agent_dir, include_project=True) == (
        project / "SYSTEM.md",
        agent_dir / "APPEND_SYSTEM.md",
    )
    (project / "APPEND_SYSTEM.md").write_text("PROJECT APPEND")
    assert "PROJECT" not in _build(tmp_path, agent_dir)
    prompt = _build(tmp_path, agent_dir, include_project=True)
    assert prompt.startswith("PROJECT SYSTEM\n\nPROJECT APPEND\n\n")
    assert "GLOBAL" not in prompt
    assert prompt.endswith(f"Current working directory: {tmp_path}")


def test_cli_values_override_discovered_files(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "SYSTEM.md").write_text("FROM FILE")
    (agent_dir / "APPEND_SYSTEM.md").write_text("APPEND FROM FILE")
    (tmp_path / "extra.md").write_text("EXTRA FROM PATH")
    prompt = _build(
        tmp_path, agent_dir, custom_prompt="Custom text", append_prompts=["extra.md", "more text"]
    )
    assert prompt.startswith("Custom text\n\nEXTRA FROM PATH\n\nmore text\n\n")
    assert "FROM FILE" not in prompt.replace("EXTRA FROM PATH", "")


def test_read_text_or_file(tmp_path: Path) -> None:
    (tmp_path / "p.md").write_text("file body")
    assert read_text_or_file("p.md", tmp_path) == "file body"
    assert read_text_or_file(str(tmp_path / "p.md"), Path("/")) == "file body"
    assert read_text_or_file("missing.md", tmp_path) == "missing.md"
    assert read_text_or_file("just some words", tmp_path) == "just some words"
    assert read_text_or_file(str(tmp_path), tmp_path) == str(tmp_path)  # a folder is text
