"""Behaviour of the app driven by keys with Textual's pilot, on the scripted provider."""

from __future__ import annotations

from pathlib import Path

from textual import events

from atomic.core.messages import AssistantMessage, BashExecutionMessage
from atomic.tui.conversation import BashView, NoteMessage, UserMessageView
from tests.tui.helpers import make_app, type_text, user_texts, wait_for

HANG = {"text": "Working on it", "hang": True}


async def test_esc_restores_queued_messages_in_order_before_typed_text_and_aborts(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [HANG])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "start")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        await type_text(pilot, "steer one")
        await pilot.press("enter")
        await type_text(pilot, "steer two")
        await pilot.press("enter")
        await type_text(pilot, "later please")
        await pilot.press("alt+enter")
        await wait_for(lambda: len(app.engine.queue().follow_up) == 1, pilot)
        assert list(app.engine.queue().steering) == ["steer one", "steer two"]
        assert app.queue_panel.has_class("-active")
        assert "Steering: steer one" in str(app.queue_panel.render())
        await type_text(pilot, "half typed")
        await pilot.press("escape")
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        assert app.editor.text == "steer one\n\nsteer two\n\nlater please\n\nhalf typed"
        assert list(app.engine.queue().steering) == [] and list(app.engine.queue().follow_up) == []
        last = [m for m in app.engine.messages() if isinstance(m, AssistantMessage)][-1]
        assert last.stop_reason == "aborted"
        await pilot.pause(0.1)
        # Nothing queued ran after the abort, and the panel is empty again.
        assert user_texts(app) == ["start"]
        assert not app.queue_panel.has_class("-active")


async def test_steering_is_delivered_before_follow_up(tmp_path: Path) -> None:
    slow = {"text": "x" * 60, "chunkSize": 2, "delayMs": 50}
    app = make_app(tmp_path / "p", [slow, {"text": "after steer"}, {"text": "after follow-up"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        await type_text(pilot, "follow this later")
        await pilot.press("alt+enter")
        await type_text(pilot, "change course")
        await pilot.press("enter")
        await wait_for(lambda: len(app.engine.queue().steering) == 1, pilot)
        panel = str(app.queue_panel.render())
        assert "Steering: change course" in panel and "Follow-up: follow this later" in panel
        await wait_for(lambda: not app.engine.is_streaming and len(user_texts(app)) == 3, pilot)
        assert user_texts(app) == ["go", "change course", "follow this later"]
        shown = [w.text for w in app.conversation.query(UserMessageView)]
        assert shown == ["go", "change course", "follow this later"]


async def test_alt_up_puts_queue_back_in_editor(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [HANG])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "start")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.is_streaming, pilot)
        await type_text(pilot, "a")
        await pilot.press("enter")
        await type_text(pilot, "b")
        await pilot.press("alt+enter")
        await wait_for(lambda: len(app.engine.queue().follow_up) == 1, pilot)
        await pilot.press("alt+up")
        assert app.editor.text == "a\n\nb"
        assert app.engine.is_streaming  # Alt+Up does not abort
        await app.engine.abort()


async def test_large_paste_is_collapsed_and_expanded_on_send(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "ok"}])
    pasted = "\n".join(f"line {i}" for i in range(120))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "look: ")
        app.post_message(events.Paste(pasted))
        await pilot.pause()
        assert app.editor.text == "look: [paste #1 +120 lines]"
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and len(user_texts(app)) == 1, pilot)
        assert user_texts(app) == ["look: " + pasted]
        # A small paste goes in as it is.
        app.post_message(events.Paste("two\nlines"))
        await pilot.pause()
        assert app.editor.text == "two\nlines"


async def test_history_with_up_and_down(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        for text in ("first", "second"):
            await type_text(pilot, text)
            await pilot.press("enter")
            await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.press("up")
        assert app.editor.text == "second"
        await pilot.press("up")
        assert app.editor.text == "first"
        await pilot.press("down")
        assert app.editor.text == "second"
        await pilot.press("down")
        assert app.editor.text == ""


async def test_shift_enter_and_ctrl_j_insert_newlines(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("a", "ctrl+j", "b", "shift+enter", "c")
        assert app.editor.text == "a\nb\nc"
        assert user_texts(app) == []


async def test_name_and_new_commands(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "hi"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and len(app.engine.messages()) == 2, pilot)
        await type_text(pilot, "/name My work")
        await pilot.press("enter")
        await pilot.pause()
        assert app.engine.session_name == "My work"
        assert "My work" in str(app.footer.render())
        old_id = app.engine.session_id
        await type_text(pilot, "/new")
        await pilot.press("enter")
        await wait_for(lambda: app.engine.session_id != old_id, pilot)
        await pilot.pause()
        assert app.engine.messages() == []
        assert list(app.conversation.query(UserMessageView)) == []


async def test_session_command_shows_counts(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "hi", "usage": {"input": 100, "output": 20}}])
    async with app.run_test(size=(120, 40)) as pilot:
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and len(app.engine.messages()) == 2, pilot)
        await type_text(pilot, "/session")
        await pilot.press("enter")
        await pilot.pause()
        note = list(app.conversation.query(NoteMessage))[-1].text
        assert "User: 1" in note and "Assistant: 1" in note and "Input: 100" in note
        assert app.engine.session_id in note


async def test_ctrl_c_clears_then_quits_and_ctrl_d_quits_on_empty(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "some text")
        await pilot.press("ctrl+d")  # not empty: stays
        assert app.is_running and app.editor.text == "some text"
        await pilot.press("ctrl+c")
        assert app.editor.text == "" and app.is_running
        await pilot.press("ctrl+c")  # clearing a draft never counts towards quitting: "press again to quit"
        assert app.is_running
        await pilot.press("ctrl+c")  # the fixed test clock makes this a double press
        await pilot.pause()
    assert app.return_code == 0

    app2 = make_app(tmp_path / "q")
    async with app2.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert not app2.is_running


async def test_bash_commands_add_output_with_and_without_context(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "!echo hello-bash")
        await pilot.press("enter")
        await wait_for(lambda: any(isinstance(m, BashExecutionMessage) for m in app.engine.messages()), pilot)
        await type_text(pilot, "!!echo secret")
        await pilot.press("enter")
        await wait_for(lambda: len([m for m in app.engine.messages() if isinstance(m, BashExecutionMessage)]) == 2, pilot)
        await pilot.pause(0.1)
        runs = [m for m in app.engine.messages() if isinstance(m, BashExecutionMessage)]
        assert "hello-bash" in runs[0].output and not runs[0].exclude_from_context
        assert runs[1].exclude_from_context is True
        views = list(app.conversation.query(BashView))
        assert len(views) == 2 and "hello-bash" in views[0].output


async def test_provider_error_is_shown_and_app_keeps_running(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"error": "boom from provider", "kind": "fatal"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and len(app.engine.messages()) >= 2, pilot)
        await pilot.pause()
        from atomic.tui.error_view import ProviderErrorView

        errors = [str(view._summary.render()) for view in app.conversation.query(ProviderErrorView)]
        assert errors == ["✗ The scripted provider error: boom from provider"]
        # The raw text adds nothing here, so the error offers no details to expand.
        assert "raw error" not in str(app.conversation.query_one(ProviderErrorView)._advice.render())
        assert app.is_running


async def test_slash_popup_completes_commands(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("/", "n", "a")
        assert app.completion.is_open
        assert app.completion.selected().label == "/name"
        await pilot.press("tab")
        assert app.editor.text == "/name "
        assert not app.completion.is_open
        await pilot.press("escape")
        assert app.editor.text == "/name "


async def test_at_completion_lists_files_respecting_gitignore(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "src" / "widget.py").write_text("x")
    (project / "build").mkdir()
    (project / "build" / "widget_gen.py").write_text("x")
    (project / ".gitignore").write_text("build/\n")
    app = make_app(project)
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "see @widg")
        assert app.completion.is_open
        labels = [item.label for item in app.completion.items]
        assert "src/widget.py" in labels and not any(label.startswith("build") for label in labels)
        await pilot.press("enter")
        assert app.editor.text == "see @src/widget.py "


async def test_thinking_level_cycles_with_f3(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        before = app.engine.models.thinking_level
        await pilot.press("f3")
        assert app.engine.models.thinking_level != before
        assert app.editor.has_class(f"level-{app.engine.models.thinking_level}")


async def test_guided_start_without_any_key(tmp_path: Path) -> None:
    from atomic.core.engine.options import SessionOptions
    from atomic.tui.app import AtomicApp

    (tmp_path / "p").mkdir()
    app = AtomicApp(SessionOptions(cwd=tmp_path / "p"), clock=lambda: 0.0, cursor_blink=False)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        guides = [n for n in app.conversation.query(NoteMessage) if n.kind == "guide"]
        assert guides and "/login" in guides[0].text and "models.json" in guides[0].text
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.text == "hello"  # rejected prompt goes back to the editor
        assert app.is_running


async def test_thinking_picker_changes_engine_level_and_esc_closes_modals(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "/thinking")
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ThinkingPickerScreen"
        before = app.engine.models.thinking_level
        await pilot.press("down", "enter")
        await pilot.pause()
        assert len(app.screen_stack) == 1
        assert app.engine.models.thinking_level != before
        assert app.editor.has_class(f"level-{app.engine.models.thinking_level}")
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert type(app.screen).__name__ == "ModelPickerScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.is_running


async def test_fork_puts_the_message_back_in_the_editor(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        for text in ("first question", "second question"):
            await type_text(pilot, text)
            await pilot.press("enter")
            await wait_for(lambda: not app.engine.is_streaming, pilot)
        old_id = app.engine.session_id
        await type_text(pilot, "/fork")
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ForkPickerScreen"
        await pilot.press("enter")
        await wait_for(lambda: app.engine.session_id != old_id, pilot)
        await pilot.pause(0.1)
        assert app.editor.text in ("first question", "second question")


async def test_initial_message_from_the_command_line_is_sent(tmp_path: Path) -> None:
    from atomic.core.engine.options import SessionOptions
    from atomic.core.providers.scripted import ScriptedProvider
    from atomic.tui.app import AtomicApp

    (tmp_path / "p").mkdir()
    options = SessionOptions(cwd=tmp_path / "p", scripted=ScriptedProvider([{"text": "hi"}]))
    app = AtomicApp(options, clock=lambda: 0.0, cursor_blink=False, initial_message="from argv")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: user_texts(app) == ["from argv"] and not app.engine.is_streaming, pilot)


async def test_the_exit_summary_says_how_to_resume(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": "hello"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and app.engine.last_assistant_text() == "hello", pilot)
        session_id = app.engine.session_id
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.exit_summary is not None
    assert " · 1 prompt · " in app.exit_summary
    assert "`atomic -c`" in app.exit_summary and f"`atomic --session {session_id}`" in app.exit_summary


async def test_no_exit_summary_for_an_empty_session(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+d")
        await pilot.pause()
    assert app.exit_summary is None


async def test_the_terminal_title_names_the_folder_and_the_state(tmp_path: Path) -> None:
    from atomic.tui.terminal_title import title_for

    cwd = tmp_path / "calc"
    app = make_app(cwd, [{"text": "slow " * 100, "chunkSize": 4, "delayMs": 10}])
    titles: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        assert app.terminal_title == "atomic · calc"
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: app.terminal_title == "atomic · calc · working", pilot)
        titles.append(app.terminal_title)
        await wait_for(lambda: not app.engine.is_streaming, pilot)
        await pilot.pause(0.05)
        assert app.terminal_title == "atomic · calc"
    assert title_for(cwd, "waiting for approval") == "atomic · calc · waiting for approval"


async def test_a_large_paste_stays_collapsed_in_the_transcript(tmp_path: Path) -> None:
    from atomic.tui.conversation import UserMessageView
    from atomic.tui.find_bar import find_matches

    app = make_app(tmp_path / "p", [{"text": "ok"}])
    pasted = "\n".join(f"pasted row {i}" for i in range(2000))
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "look at this: ")
        app.post_message(events.Paste(pasted))
        await pilot.pause()
        await type_text(pilot, " thanks")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and len(user_texts(app)) == 1, pilot)
        assert user_texts(app) == ["look at this: " + pasted + " thanks"]  # the model gets all of it
        view = app.conversation.query_one(UserMessageView)
        shown = str(view.render())
        assert shown == "look at this: [pasted 2,000 lines · click to expand] thanks"
        assert find_matches(app.conversation, "pasted row 1500") == []  # hidden lines are not searched
        await pilot.click(UserMessageView)
        await pilot.pause()
        assert "pasted row 1500" in str(view.render())
