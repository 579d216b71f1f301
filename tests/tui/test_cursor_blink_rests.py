"""The editor's cursor rests until the first key and after a quiet spell, and blinks again at the
next key."""

from __future__ import annotations

from pathlib import Path

from atomic.tui.app import AtomicApp
from atomic.tui.blink_timeout import BlinkTimeout
from tests.tui.helpers import make_app, wait_for


async def test_the_cursor_rests_until_a_key_and_when_quiet_again(tmp_path: Path) -> None:
    app = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        editor = app.editor
        editor.cursor_blink = True
        editor.blink_timeout = BlinkTimeout(editor, quiet_s=0.2)
        editor.blink_timeout.start()
        assert not editor.cursor_blink  # no key yet
        await pilot.press("a")
        assert editor.cursor_blink and editor.text == "a"
        await wait_for(lambda: not editor.cursor_blink, pilot, timeout=3)


async def test_a_cursor_set_not_to_blink_never_starts(tmp_path: Path) -> None:
    app: AtomicApp = make_app(tmp_path / "p")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(lambda: app.session_ready, pilot)
        await pilot.press("a")
        assert not app.editor.cursor_blink
        assert app.editor.blink_timeout is not None and app.editor.blink_timeout.timer is None
