"""Notifications: toasts stay clear of the editor, desktop notifications after long turns, extension notify."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.tui.helpers import make_app, type_text, wait_for


async def test_notifications_never_cover_the_editor(tmp_path: Path) -> None:
    from textual.widgets._toast import Toast, ToastRack

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        app.notify("Session exported to:\n/a/very/long/path/that/wraps/over/two/lines/export.html")
        await pilot.pause(0.2)
        rack = app.screen.get_child_by_type(ToastRack)
        toast = rack.query_one(Toast)
        assert toast.region.height > 0
        assert not toast.region.overlaps(app.editor.region)
        assert toast.region.y < app.conversation.region.y + app.conversation.region.height // 2



async def test_desktop_notification_after_a_long_turn_when_enabled(tmp_path: Path, monkeypatch: Any) -> None:
    from atomic.tui import events_bridge

    sent: list[str] = []
    monkeypatch.setattr(events_bridge, "desktop_notify", lambda app, title, body: sent.append(body))
    monkeypatch.setattr(events_bridge, "LONG_TURN_S", 0.0)
    app = make_app(tmp_path / "p", [{"text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "first")
        await pilot.press("enter")
        await wait_for(lambda: not app.engine.is_streaming and app.engine.last_assistant_text() == "one", pilot)
        await pilot.pause(0.05)
        assert sent == []  # off by default
        app.engine.save_settings({"notifyOnTurnEnd": True})
        assert events_bridge.notify_on_turn_end(app.engine.settings)
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


async def test_extension_notify_request_becomes_an_app_notification(tmp_path: Path) -> None:
    from atomic.core.extensions.events import ExtensionUiRequest

    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        app.bridge.handle(ExtensionUiRequest(id="n1", message="Index rebuilt", notify_type="warning"))
        await pilot.pause()
        shown = [(n.message, n.severity) for n in app._notifications]
        assert ("Index rebuilt", "warning") in shown



async def test_a_waiting_approval_sends_a_desktop_notification_when_enabled(tmp_path: Path, monkeypatch: Any) -> None:
    from atomic.tui import events_bridge

    sent: list[str] = []
    monkeypatch.setattr(events_bridge, "desktop_notify", lambda app, title, body: sent.append(body))
    script = [{"toolCalls": [{"name": "bash", "arguments": {"command": "echo hi"}, "id": "c1"}]}, {"text": "ok"}]
    app = make_app(tmp_path / "p", script, permission_mode="ask")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        app.engine.save_settings({"notifyOnTurnEnd": True})
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_for(lambda: app.approver.card is not None, pilot, timeout=10)
        assert sent == ["Atomic is waiting for your approval: Run `echo hi`"]
        await wait_for(lambda: app.approver.card is not None and app.approver.card.ready, pilot)
        await pilot.press("y")
        await wait_for(lambda: not app.engine.is_streaming, pilot)


async def test_notify_on_turn_end_is_a_declared_setting_shown_in_settings() -> None:
    from atomic.core.settings import Settings
    from atomic.tui.screens.settings_items import SETTING_ITEMS

    assert Settings.model_validate({"notifyOnTurnEnd": True}).notify_on_turn_end is True
    assert "notifyOnTurnEnd" in [item.key for item in SETTING_ITEMS]


async def test_editor_padding_x_pads_the_editor(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        width = app.editor.content_region.width
        app.engine.save_settings({"editorPaddingX": 3})
        app.apply_settings()
        await pilot.pause()
        assert app.editor.content_region.width == width - 6
