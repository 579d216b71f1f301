"""Project trust through the contract: the decision, what it skipped, and the user's answers."""

from __future__ import annotations

from pathlib import Path

from atomic.core.contract import SessionOptions, open_engine
from atomic.core.providers.scripted import ScriptedProvider


def make_project(root: Path) -> Path:
    """A folder that brings a prompt template and a context file."""
    prompts = root / ".atomic" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "review.md").write_text("---\ndescription: Review\n---\nReview it.\n", encoding="utf-8")
    (root / "AGENTS.md").write_text("PROJECT-RULES", encoding="utf-8")
    return root


async def test_answers_save_load_and_forget(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    engine = await open_engine(SessionOptions(cwd=cwd, scripted=ScriptedProvider([])))
    try:
        status = engine.trust.status(with_skipped=True)
        assert status is not None and status.undecided and status.skipped is not None
        assert {s.kind for s in status.skipped} == {"prompt templates", "context files"}
        assert [c.name for c in engine.commands()] == [] and engine.context_file_paths() == []
        assert engine.trust.saved_here() is False

        trust = await engine.trust.decide("trust")
        assert (trust.trusted, trust.source) == (True, "saved") and engine.trust.saved_here()
        assert [c.name for c in engine.commands()] == ["review"]
        assert [p.name for p in engine.context_file_paths()] == ["AGENTS.md"]
        assert engine.trust.skipped().empty

        denied = await engine.trust.decide("deny")
        assert denied.trusted is False and [c.name for c in engine.commands()] == []

        forgotten = await engine.trust.decide("forget")
        assert forgotten.undecided and engine.trust.saved_here() is False

        once = await engine.trust.decide("once")
        assert (once.trusted, once.source) == (True, "once") and engine.trust.saved_here() is False
        assert [c.name for c in engine.commands()] == ["review"]
    finally:
        await engine.shutdown()


async def test_the_notice_names_what_an_undecided_folder_left_out(tmp_path: Path, agent_dir: Path) -> None:
    cwd = make_project(tmp_path / "repo")
    engine = await open_engine(SessionOptions(cwd=cwd, scripted=ScriptedProvider([])))
    try:
        notice = engine.trust.untrusted_notice()
        assert notice is not None and "prompt template" in notice and "context file" in notice
        assert engine.trust.project_resources().prompt_templates == (cwd / ".atomic" / "prompts" / "review.md",)
    finally:
        await engine.shutdown()
