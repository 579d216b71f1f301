"""Deferred engine start, copy keys, notifications, /model <term>, extension UI, compaction queue, layout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from atomic.core.engine.options import SessionOptions
from atomic.core.events import CompactionEnd
from atomic.core.providers.scripted import ScriptedProvider
from atomic.tui.app import AtomicApp
from atomic.tui.conversation import StartupHeader
from tests.tui.helpers import make_app, type_text, wait_for


async def test_deferred_start_paints_chrome_first_then_loads_the_engine(tmp_path: Path) -> None:
    options = SessionOptions(cwd=tmp_path, scripted=ScriptedProvider([]))
    app = AtomicApp(options, clock=lambda: 0.0, cursor_blink=False, defer_session_start=True)
    async with app.run_test(size=(100, 30)) as pilot:
        # The editor takes keys before the engine exists, and the text is kept.
        await pilot.press("h", "i")
        await wait_for(lambda: app.session_ready, pilot)
        assert app.session is not None
        assert app.editor.text == "hi"
        await pilot.press("enter")
        await wait_for(lambda: app.session.last_assistant_text() == "You said: hi", pilot)


REPLY_WITH_CODE = "Use this:\n\n```python\nprint('hi')\n```\n\nDone."


def copied(app: AtomicApp) -> list[str]:
    texts: list[str] = []
    app.copy_to_clipboard = texts.append  # type: ignore[method-assign]
    return texts


async def test_ctrl_y_copies_the_last_reply_and_alt_y_its_code_block(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p", [{"text": REPLY_WITH_CODE}])
    async with app.run_test(size=(100, 30)) as pilot:
        clipboard = copied(app)
        await type_text(pilot, "code please")
        await pilot.press("enter")
        await wait_for(lambda: app.session.last_assistant_text() == REPLY_WITH_CODE, pilot)
        await pilot.press("ctrl+y")
        await wait_for(lambda: len(clipboard) == 1, pilot)
        await pilot.press("alt+y")
        await wait_for(lambda: len(clipboard) == 2, pilot)
        assert clipboard == [REPLY_WITH_CODE, "print('hi')"]


async def test_desktop_notification_after_a_long_turn_when_enabled(tmp_path: Path, monkeypatch: Any) -> None:
    from atomic.tui import events_bridge

    sent: list[str] = []
    monkeypatch.setattr(events_bridge, "desktop_notify", lambda app, title, body: sent.append(body))
    monkeypatch.setattr(events_bridge, "LONG_TURN_S", 0.0)
    app = make_app(tmp_path / "p", [{"text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "first")
        await pilot.press("enter")
        await wait_for(lambda: not app.session.is_streaming and app.session.last_assistant_text() == "one", pilot)
        await pilot.pause(0.05)
        assert sent == []  # off by default
        app.session.settings_manager.update({"notifyOnTurnEnd": True})
        assert events_bridge.notify_on_turn_end(app.session.settings)
        await type_text(pilot, "second")
        await pilot.press("enter")
        await wait_for(lambda: len(sent) == 1, pilot)


def test_desktop_notify_is_skipped_while_the_terminal_has_focus() -> None:
    from atomic.tui.events_bridge import desktop_notify

    class FakeDriver:
        def __init__(self) -> None:
            self.written = ""

        def write(self, data: str) -> None:
            self.written += data

        def flush(self) -> None:
            pass

    class FakeApp:
        is_headless = False
        terminal_focused: bool | None = True

        def __init__(self) -> None:
            self._driver = FakeDriver()

    app = FakeApp()
    desktop_notify(app, "Atomic", "done")
    assert app._driver.written == ""
    app.terminal_focused = False
    desktop_notify(app, "Atomic", "done; really")
    assert "\x1b]777;notify;Atomic;done, really\x07" in app._driver.written
    assert "\x1b]9;Atomic: done, really\x07" in app._driver.written


async def test_model_with_an_exact_term_switches_directly_else_opens_the_filtered_picker(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        model = app.session.model
        await type_text(pilot, f"/model {model.provider}/{model.id}")
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.screen_stack) == 1  # no picker: switched at once
        assert app.session.model.id == model.id
        await type_text(pilot, "/model scri")
        await pilot.press("enter")
        await wait_for(lambda: len(app.screen_stack) == 2, pilot)
        assert type(app.screen).__name__ == "ModelPickerScreen"


async def test_extension_notify_request_becomes_an_app_notification(tmp_path: Path) -> None:
    from atomic.core.extensions.events import ExtensionUiRequest

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        app.bridge.handle(ExtensionUiRequest(id="n1", message="Index rebuilt", notify_type="warning"))
        await pilot.pause()
        shown = [(n.message, n.severity) for n in app._notifications]
        assert ("Index rebuilt", "warning") in shown


async def test_extension_command_arguments_are_completed(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:

        class FakeExtensions:
            def commands(self) -> list[dict[str, Any]]:
                return [{"name": "deploy", "description": "Deploy somewhere"}]

            def complete_command(self, name: str, prefix: str) -> list[str]:
                return [v for v in ("staging", "production") if v.startswith(prefix)] if name == "deploy" else []

        app.session.extensions = FakeExtensions()
        await type_text(pilot, "/deploy st")
        assert app.completion.is_open
        assert [i.value for i in app.completion.items] == ["staging"]
        await pilot.press("tab")
        await pilot.pause()
        assert app.editor.text == "/deploy staging "


async def test_messages_typed_during_compaction_are_sent_after_it(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        app.session.compaction.is_compacting = True
        await type_text(pilot, "after the summary")
        await pilot.press("enter")
        await pilot.pause()
        assert app.input_flow.after_compaction == ["after the summary"]
        assert "after the summary" in str(app.queue_panel.render())
        assert any(n.message == "Queued for after compaction" for n in app._notifications)
        assert app.session.last_assistant_text() is None
        app.session.compaction.is_compacting = False
        app.bridge.handle(CompactionEnd(reason="manual", aborted=True))
        await wait_for(lambda: app.session.last_assistant_text() == "You said: after the summary", pilot)
        assert app.input_flow.after_compaction == []


async def test_short_conversation_starts_at_the_top(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        header = app.conversation.query_one(StartupHeader)
        assert header.region.y == app.conversation.region.y
        for index in range(20):
            app.renderer.note(f"line {index}")
        await pilot.pause()
        await pilot.pause()
        assert app.conversation.scroll_y == app.conversation.max_scroll_y > 0
