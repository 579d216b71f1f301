"""Setup and settings through the real app: /login selects a model, /logout says what happens next,
Shift+Tab cycles and saves the thinking level, /compact and /export report progress and result, and the
scripted provider without a script shows a real demonstration turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from atomic.core.engine.options import SessionOptions
from atomic.tui.app import AtomicApp
from atomic.tui.conversation import AssistantText, NoteMessage
from atomic.tui.tool_cards import ToolCard
from tests.tui.helpers import behind, make_app, type_text, wait_for


def no_key_app(cwd: Path) -> AtomicApp:
    cwd.mkdir(parents=True, exist_ok=True)
    return AtomicApp(SessionOptions(cwd=cwd), clock=lambda: 0.0, cursor_blink=False)


def notes(app: AtomicApp, kind: str | None = None) -> list[NoteMessage]:
    return [n for n in app.conversation.query(NoteMessage) if kind is None or n.kind == kind]


async def run_command(pilot: Any, text: str) -> None:
    await type_text(pilot, text)
    await pilot.press("enter")
    await pilot.pause()


async def login(pilot: Any, provider: str, key: str) -> None:
    app: AtomicApp = pilot.app
    await run_command(pilot, "/login")
    await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
    await pilot.press(*provider, "enter")
    await pilot.pause()
    await pilot.press(*key, "enter")
    await wait_for(lambda: type(app.screen).__name__ != "LoginScreen", pilot)
    await pilot.pause()


async def test_login_selects_the_providers_default_model_at_once(tmp_path: Path, agent_dir: Path) -> None:
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        assert app.engine.models.model is None and notes(app, "guide")
        await login(pilot, "anthropic", "sk-ant-test")
        model = app.engine.models.model
        assert model is not None and (model.provider, model.id) == ("anthropic", "claude-opus-4-7")
        behind(app).models.ensure_can_prompt()  # the next message goes out instead of the red welcome text
        assert not notes(app, "guide")
        (said,) = [n for n in notes(app) if n.text.startswith("Logged in")]
        assert "Using" in said.text and "anthropic/claude-opus-4-7" in said.text
        assert "claude-opus-4-7" in str(app.footer.render())
        settings = json.loads((agent_dir / "settings.json").read_text())
        assert (settings["defaultProvider"], settings["defaultModel"]) == ("anthropic", "claude-opus-4-7")
        assert "sk-ant-test" not in str([n.text for n in notes(app)])


async def test_logout_of_the_active_provider_says_what_happens_next(tmp_path: Path) -> None:
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        await login(pilot, "anthropic", "sk-ant-test")
        await run_command(pilot, "/logout")
        await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
        await pilot.press("enter")
        await wait_for(lambda: type(app.screen).__name__ != "LoginScreen", pilot)
        await pilot.pause()
        (said,) = [n for n in notes(app) if n.text.startswith("Logged out")]
        assert "stored key is removed" in said.text
        assert "No model has a key now" in said.text and "$ANTHROPIC_API_KEY" in said.text
        assert "no key (/login)" in str(app.footer.render())


async def test_logout_when_another_provider_has_a_key(tmp_path: Path) -> None:
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(110, 36)) as pilot:
        await pilot.pause()
        await login(pilot, "openai", "sk-openai-test")
        await login(pilot, "anthropic", "sk-ant-test")
        assert app.engine.models.model.provider == "anthropic"
        await run_command(pilot, "/logout")
        await wait_for(lambda: type(app.screen).__name__ == "LoginScreen", pilot)
        await pilot.press(*"anthropic", "enter")
        await wait_for(lambda: type(app.screen).__name__ != "LoginScreen", pilot)
        await pilot.pause()
        (said,) = [n for n in notes(app) if n.text.startswith("Logged out")]
        assert "has no key now" in said.text and "ctrl+l" in said.text


async def test_f3_cycles_only_the_thinking_level_and_saves_it(tmp_path: Path, agent_dir: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "draft")
        assert app.engine.models.thinking_level == "medium"
        await pilot.press("f3")
        await pilot.pause()
        assert app.engine.models.thinking_level == "high"
        assert app.editor.has_focus and app.editor.text == "draft"
        settings = json.loads((agent_dir / "settings.json").read_text())
        assert settings["defaultThinkingLevel"] == "high"
        assert settings["modelThinkingLevels"] == {"scripted/scripted-model": "high"}
    again = make_app(tmp_path / "p")
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.engine.models.thinking_level == "high"


async def test_shift_tab_before_the_engine_is_ready_keeps_the_focus(tmp_path: Path) -> None:
    app = AtomicApp(SessionOptions(cwd=tmp_path), clock=lambda: 0.0, cursor_blink=False, defer_session_start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("shift+tab")
        assert app.editor.has_focus
        await wait_for(lambda: app.session_ready, pilot)


LONG = "\n".join(f"detail line {i}" for i in range(30))


async def test_compact_reports_progress_then_what_was_removed(tmp_path: Path) -> None:
    history = [{"text": f"answer {i}"} for i in range(3)]
    planner = {"text": "2,20\n", "delayMs": 300}
    app = make_app(tmp_path / "p", [*history, planner])
    async with app.run_test(size=(110, 40)) as pilot:
        for i in range(3):
            await type_text(pilot, f"question {i}\n{LONG}")
            await pilot.press("enter")
            await wait_for(lambda i=i: app.engine.last_assistant_text() == f"answer {i}", pilot)
            await wait_for(lambda: not app.engine.is_streaming, pilot)
        await run_command(pilot, "/compact")
        await wait_for(lambda: app.engine.is_compacting, pilot)
        (progress,) = [n for n in notes(app) if n.text.startswith("⟳")]
        assert progress.text.startswith("⟳ Compacting the context (")
        assert "messages" in progress.text
        assert "Compacting context…" in str(app.working.render())
        await wait_for(lambda: not app.engine.is_compacting, pilot)
        await pilot.pause()
        # The same line now says what came of it.
        assert progress.is_attached and progress.text.startswith("✓ Context compacted: removed 19 of ")
        assert "(filtered N lines)" in progress.text and "backed up first" in progress.text
        assert not app.working.has_class("-active")
        assert not [n for n in notes(app, "error")]


async def test_compact_failure_is_reported_once(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "an answer"}, {"text": "no records at all"}])
    async with app.run_test(size=(110, 30)) as pilot:
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.last_assistant_text() == "an answer", pilot)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await run_command(pilot, "/compact")
        await wait_for(lambda: bool(notes(app, "error")), pilot)
        await pilot.pause(0.2)
        errors = notes(app, "error")
        assert len(errors) == 1 and errors[0].text.startswith("Compaction failed")


async def test_export_reports_the_path_written(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "an answer"}])
    async with app.run_test(size=(110, 30)) as pilot:
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.last_assistant_text() == "an answer", pilot)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        target = tmp_path / "out" / "talk.html"
        await run_command(pilot, f"/export {target}")
        await wait_for(lambda: any(n.text.startswith("✓ Exported") for n in notes(app)), pilot)
        (said,) = [n for n in notes(app) if n.text.startswith("✓ Exported")]
        assert str(target) in said.text
        assert target.exists() and "an answer" in target.read_text()
        assert not [n for n in notes(app) if n.text.startswith("⟳")]  # the progress line became the result


async def test_export_failure_is_reported(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        await run_command(pilot, "/export")
        await wait_for(lambda: bool(notes(app, "error")), pilot)
        assert notes(app, "error")[0].text.startswith("Export failed: Nothing to export yet")


async def test_scripted_provider_without_a_script_shows_a_real_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATOMIC_SCRIPT", raising=False)
    project = tmp_path / "p"
    project.mkdir()
    (project / "README.md").write_text("# Demo project\n\nIt adds numbers.\n")
    (project / ".env").write_text("SECRET=1\n")
    (project / "src").mkdir()
    # What `atomic --provider scripted` builds: no script anywhere.
    app = AtomicApp(SessionOptions(cwd=project, provider="scripted"), clock=lambda: 0.0, cursor_blink=False)
    async with app.run_test(size=(110, 50)) as pilot:
        await type_text(pilot, "what is this project?")
        await pilot.press("enter")
        await wait_for(lambda: (app.engine.last_assistant_text() or "").startswith("## What just happened"), pilot, 20)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause()
        bash, read = app.conversation.query(ToolCard)
        assert bash.tool_name == "bash" and bash.status == "done" and str(project) in bash.output
        assert "README.md" in bash.output and "src/" in bash.output
        assert read.tool_name == "read" and read.args["path"] == "README.md" and read.status == "done"
        answer = app.engine.last_assistant_text() or ""
        assert "```markdown\n# Demo project" in answer and "/login" in answer
        assert "You said" not in answer.splitlines()[0]
        assert "SECRET" not in answer
        reply = list(app.conversation.query(AssistantText))[-1]
        assert "What just happened" in reply.text_so_far


async def test_a_compaction_retry_counts_down_and_esc_cancels_it(tmp_path: Path, agent_dir: Path) -> None:
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 30_000}}))
    overloaded = {"error": "529 overloaded", "kind": "transient", "status": 529}
    app = make_app(tmp_path / "p", [{"text": "answer 0"}, {"text": "answer 1"}, {"text": "answer 2"}, overloaded])
    async with app.run_test(size=(110, 40)) as pilot:
        for i in range(3):
            await type_text(pilot, f"question {i}\n{LONG}")
            await pilot.press("enter")
            await wait_for(lambda i=i: app.engine.last_assistant_text() == f"answer {i}", pilot)
            await wait_for(lambda: not app.engine.is_streaming, pilot)
        await run_command(pilot, "/compact")
        await wait_for(lambda: "Compaction: retrying in 30s (1/3)" in str(app.working.render()), pilot)
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_compacting, pilot)
        await pilot.pause()
        (line,) = [n for n in notes(app) if n.text.startswith(("⟳", "Compaction"))]
        assert line.text == "Compaction cancelled: the context is unchanged." and line.kind == "warning"
        assert not app.working.has_class("-active")


async def test_without_a_key_the_guide_appears_once_and_enter_adds_one_line(tmp_path: Path) -> None:
    app = no_key_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        assert app.conversation.scroll_y == 0  # the welcome is read from its top
        for text in ("hello", "again"):
            app.editor.clear_all()
            await run_command(pilot, text)
            await pilot.pause(0.2)
        shown = [n.text for n in notes(app)]
        guides = [t for t in shown if "API_KEY" in t]
        assert len(guides) == 1  # the welcome guide, and only it, names the key variables
        reminders = [n.text for n in notes(app, "error")]
        assert len(reminders) == 2 and all("\n" not in r and "API_KEY" not in r for r in reminders)
        assert not any("start `atomic`" in t for t in shown)
