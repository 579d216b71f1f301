from __future__ import annotations

import os
from pathlib import Path

import pytest

from atomic.core.resources.context_files import load_context_files


def _mine(files: list, *roots: Path) -> list[Path]:
    """Only the files under the test's own folders (a real /AGENTS.md must not break the test)."""
    return [f.path for f in files if any(f.path.is_relative_to(r) for r in roots)]


def test_agent_dir_first_then_root_down_to_cwd(tmp_path: Path, agent_dir: Path) -> None:
    project = tmp_path / "repo"
    nested = project / "pkg" / "sub"
    nested.mkdir(parents=True)
    (agent_dir / "AGENTS.md").write_text("global")
    (tmp_path / "CLAUDE.md").write_text("outer")
    (project / "AGENTS.md").write_text("project")
    (nested / "AGENTS.md").write_text("nested")

    files = load_context_files(nested, agent_dir)
    paths = _mine(files, tmp_path, agent_dir)
    assert paths == [
        agent_dir / "AGENTS.md",
        tmp_path / "CLAUDE.md",
        project / "AGENTS.md",
        nested / "AGENTS.md",
    ]
    assert files[0].content == "global"
    assert files[-1].content == "nested"


def test_agents_md_preferred_over_claude_md(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("agents")
    (tmp_path / "CLAUDE.md").write_text("claude")
    files = [f for f in load_context_files(tmp_path, agent_dir) if f.path.parent == tmp_path]
    assert [f.content for f in files] == ["agents"]


def test_deduplicated_by_real_path(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "AGENTS.md").write_text("global")
    # cwd is the agent dir itself: the same file is reached twice.
    files = load_context_files(agent_dir, agent_dir)
    assert _mine(files, agent_dir) == [agent_dir / "AGENTS.md"]

    project = tmp_path / "p"
    project.mkdir()
    os.symlink(agent_dir / "AGENTS.md", project / "AGENTS.md")
    files = load_context_files(project, agent_dir)
    assert _mine(files, agent_dir, project) == [agent_dir / "AGENTS.md"]


def test_unreadable_file_skipped(tmp_path: Path, agent_dir: Path) -> None:
    (tmp_path / "AGENTS.md").write_bytes(b"\xff\xfe\xfa not utf-8")
    nested = tmp_path / "n"
    nested.mkdir()
    (nested / "AGENTS.md").write_text("ok")
    files = load_context_files(nested, agent_dir)
    assert _mine(files, tmp_path) == [nested / "AGENTS.md"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_permission_denied_skipped(tmp_path: Path, agent_dir: Path) -> None:
    target = tmp_path / "AGENTS.md"
    target.write_text("secret")
    target.chmod(0)
    try:
        assert _mine(load_context_files(tmp_path, agent_dir), tmp_path) == []
    finally:
        target.chmod(0o644)
