"""The TUI opens a damaged session file (at start or by /resume) and shows one warning that says what was
skipped and where the damaged file is kept."""

from __future__ import annotations

import json
from pathlib import Path

from atomic.core.paths import default_session_dir
from atomic.tui.conversation import NoteMessage
from tests.tui.helpers import make_app, type_text, user_texts, wait_for

SESSION_ID = "019ae5f0-bbbb-7ccc-8ddd-0123456789ab"
ISO = "2026-12-04T10:00:00.000Z"


def damaged_file(folder: Path) -> Path:
    """No header line, and a torn last line."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"2026-12-04T10-00-00-000Z_{SESSION_ID}.jsonl"
    entry = {"type": "message", "id": "u1", "parentId": None, "timestamp": ISO,
             "message": {"role": "user", "content": "what survived the crash", "timestamp": 1}}
    path.write_text(json.dumps(entry) + "\n" + '{"type":"message","id":"a1","par', encoding="utf-8")
    return path


def damage_notes(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.text) for n in app.conversation.query(NoteMessage) if "was damaged" in str(n.text)]


async def test_starting_on_a_damaged_session_shows_one_warning(tmp_path: Path) -> None:
    path = damaged_file(tmp_path / "sessions")
    app = make_app(tmp_path / "p", session=str(path))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(lambda: bool(damage_notes(app)), pilot)
        assert user_texts(app) == ["what survived the crash"]
        [note] = damage_notes(app)
        assert str(path) in note and ".damaged" in note
        warnings = [n for n in app.conversation.query(NoteMessage) if "was damaged" in str(n.text)]
        assert warnings[0].kind == "warning"


async def test_resume_of_a_damaged_session_shows_one_warning(tmp_path: Path) -> None:
    cwd = tmp_path / "p"
    cwd.mkdir()
    path = damaged_file(default_session_dir(cwd))
    app = make_app(cwd, [{"text": "fine"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await type_text(pilot, "/resume")
        await pilot.press("enter")
        await wait_for(lambda: len(app.screen_stack) == 2, pilot)
        await pilot.press(*"what survived")
        await pilot.pause(0.2)
        await pilot.press("enter")
        await wait_for(lambda: app.engine.session_file == path, pilot)
        await wait_for(lambda: bool(damage_notes(app)), pilot)
        assert len(damage_notes(app)) == 1
        assert user_texts(app) == ["what survived the crash"]
