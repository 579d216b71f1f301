"""Project trust gates everything a project brings: settings, extensions, templates, skills, context, MCP."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.core.engine.factory import create_session
from atomic.core.engine.options import SessionOptions
from atomic.core.engine.session import AgentSession
from atomic.core.project_offer import project_offer
from atomic.core.providers.scripted import ScriptedProvider
from atomic.core.trust import TrustStore


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make_project(root: Path) -> Path:
    """A cloned repo that brings one of everything; its extension leaves a mark when imported."""
    (root / ".git").mkdir(parents=True)
    write(root / "AGENTS.md", "REPO-ROOT-INSTRUCTIONS")
    cwd = root / "sub"
    write(cwd / "CLAUDE.md", "SUBFOLDER-INSTRUCTIONS")
    write(cwd / ".atomic" / "settings.json", json.dumps({"theme": "light"}))
    write(
        cwd / ".atomic" / "extensions" / "mark.py",
        "from pathlib import Path\nPath(__file__).with_name('IMPORTED').write_text('x')\n"
        "def activate(atomic):\n    atomic.register_command('projcmd', lambda args, ctx: None)\n",
    )
    write(cwd / ".atomic" / "prompts" / "review.md", "---\ndescription: Review\n---\nReview it.\n")
    write(cwd / ".atomic" / "skills" / "deploy" / "SKILL.md", "---\nname: deploy\ndescription: Deploy it\n---\nGo.\n")
    write(root / ".agents" / "skills" / "lint" / "SKILL.md", "---\nname: lint\ndescription: Lint it\n---\nLint.\n")
    write(cwd / ".mcp.json", json.dumps({"mcpServers": {"evil": {"command": "evil-server", "args": ["--all"]}}}))
    return cwd


async def open_session(cwd: Path, **kwargs: object) -> AgentSession:
    return await create_session(SessionOptions(cwd=cwd, scripted=ScriptedProvider([]), **kwargs))  # type: ignore[arg-type]


def loaded(session: AgentSession) -> dict[str, object]:
    return {
        "templates": [t.name for t in session.toolset.resources.templates],
        "skills": sorted(s.name for s in session.toolset.resources.skills),
        "context": [f.content for f in session.toolset.context_files],
        "theme": session.settings.theme,
        "commands": sorted(session.extensions.registered_commands) if session.extensions is not None else [],
    }


async def test_undecided_project_loads_nothing_it_brings(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    write(agent_dir / "AGENTS.md", "GLOBAL-INSTRUCTIONS")
    session = await open_session(cwd)
    try:
        assert session.trust.decision.undecided
        assert not (cwd / ".atomic" / "extensions" / "IMPORTED").exists()
        assert loaded(session) == {
            "templates": [], "skills": [], "context": ["GLOBAL-INSTRUCTIONS"], "theme": "dark", "commands": [],
        }
        assert "REPO-ROOT" not in session.toolset.system_prompt and "GLOBAL-INSTRUCTIONS" in session.toolset.system_prompt
        assert session.mcp is not None and [s.status for s in session.mcp.states()] == ["untrusted"]
        notice = session.trust.untrusted_notice()
        assert notice is not None
        assert "1 extension" in notice and "2 skills" in notice and "2 context files" in notice
        assert "MCP: evil" in notice and "--approve" in notice
    finally:
        await session.shutdown()


async def test_approved_project_loads_everything(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    session = await open_session(cwd, approve=True)
    try:
        assert (cwd / ".atomic" / "extensions" / "IMPORTED").exists()
        assert loaded(session) == {
            "templates": ["review"], "skills": ["deploy", "lint"],
            "context": ["REPO-ROOT-INSTRUCTIONS", "SUBFOLDER-INSTRUCTIONS"], "theme": "light", "commands": ["projcmd"],
        }
        assert session.trust.untrusted_notice() is None
    finally:
        await session.shutdown()


async def test_saved_decision_for_an_ancestor_trusts_and_refuses(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    TrustStore(agent_dir).save(tmp_path / "repo", True)
    session = await open_session(cwd)
    try:
        assert session.trust.decision.source == "saved"
        assert loaded(session)["templates"] == ["review"]
    finally:
        await session.shutdown()
    TrustStore(agent_dir).save(cwd, False)  # the closer decision wins
    refused = await open_session(cwd)
    try:
        assert loaded(refused)["templates"] == [] and refused.trust.untrusted_notice() is None
    finally:
        await refused.shutdown()


async def test_project_settings_cannot_trust_the_project(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    write(cwd / ".atomic" / "settings.json", json.dumps({"defaultProjectTrust": "always"}))
    session = await open_session(cwd)
    try:
        assert not session.trust.decision.trusted
        assert not (cwd / ".atomic" / "extensions" / "IMPORTED").exists()
    finally:
        await session.shutdown()


async def test_trusting_later_loads_the_project(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    options = SessionOptions(cwd=cwd, scripted=ScriptedProvider([]))
    session = await create_session(options)
    try:
        assert session.extensions is None  # nothing loadable at start: the runtime is built on first need
        await session.trust.apply(session.trust.decision.trusted_once())
        assert (cwd / ".atomic" / "extensions" / "IMPORTED").exists()
        state = loaded(session)
        assert state["templates"] == ["review"] and state["commands"] == ["projcmd"] and state["theme"] == "light"
        assert "SUBFOLDER-INSTRUCTIONS" in session.toolset.system_prompt
        assert session.mcp is not None and [s.name for s in session.mcp.states() if s.status == "untrusted"] == []
    finally:
        await session.shutdown()


def test_offer_lists_what_the_folder_brings(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    offer = project_offer(cwd, agent_dir)
    kinds = dict(offer.items())
    assert kinds["extensions"] == [str(cwd / ".atomic" / "extensions" / "mark.py")]
    assert kinds["MCP servers"] == ["evil: evil-server --all"]
    assert len(kinds["skills"]) == 2 and len(kinds["prompt templates"]) == 1
    assert kinds["context files"] == [str(tmp_path / "repo" / "AGENTS.md"), str(cwd / "CLAUDE.md")]
    assert kinds["settings"] == [str(cwd / ".atomic" / "settings.json")]
    assert not offer.empty


async def test_a_folder_that_brings_nothing_is_not_announced(tmp_path: Path, agent_dir: Path) -> None:
    write(agent_dir / "AGENTS.md", "GLOBAL")  # the user's own file is not the project's
    empty = tmp_path / "plain"
    empty.mkdir()
    assert project_offer(empty, agent_dir).empty
    session = await open_session(empty)
    try:
        assert session.trust.decision.undecided
        assert session.trust.untrusted_notice() is None
    finally:
        await session.shutdown()
