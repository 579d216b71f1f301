"""Images in the editor: a dragged or pasted image path, `@` of an image file and Ctrl+V with an image on
the clipboard attach the image (a chip in the editor); it is sent as image content."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from textual import events

from atomic.core.messages import ImageContent, UserMessage
from atomic.tui import image_attachments
from atomic.tui.app import AtomicApp
from tests.tui.helpers import make_app, type_text, wait_for

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


def project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "shots").mkdir(exist_ok=True)
    (root / "shots" / "screen shot.png").write_bytes(PNG)
    return root


def sent_images(app: AtomicApp) -> list[ImageContent]:
    users = [m for m in app.engine.messages() if isinstance(m, UserMessage)]
    content = users[-1].content if users else []
    return [block for block in content if isinstance(block, ImageContent)] if isinstance(content, list) else []


async def send_and_wait(app: AtomicApp, pilot: Any) -> None:
    await pilot.press("enter")
    await wait_for(lambda: not app.engine.is_streaming and app.engine.last_assistant_text() == "seen", pilot)


async def test_a_dragged_image_path_becomes_a_chip_and_is_sent_as_an_image(tmp_path: Path) -> None:
    cwd = project(tmp_path / "p")
    app = make_app(cwd, [{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "what is wrong here? ")
        app.post_message(events.Paste(f"'{cwd / 'shots' / 'screen shot.png'}'"))  # a terminal's drag and drop
        await pilot.pause()
        assert app.editor.text == "what is wrong here? [image #1 screen shot.png]"
        await send_and_wait(app, pilot)
        images = sent_images(app)
        assert [(i.mime_type, base64.b64decode(i.data)) for i in images] == [("image/png", PNG)]


async def test_at_an_image_file_attaches_it(tmp_path: Path) -> None:
    cwd = project(tmp_path / "p")
    (cwd / "logo.png").write_bytes(PNG)
    app = make_app(cwd, [{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await type_text(pilot, "describe @logo.png please")
        await send_and_wait(app, pilot)
        assert len(sent_images(app)) == 1


async def test_ctrl_v_pastes_a_clipboard_image_else_text(tmp_path: Path, monkeypatch: Any) -> None:
    cwd = project(tmp_path / "p")
    clipboard: list[bytes | None] = [PNG]
    monkeypatch.setattr(image_attachments, "clipboard_image", lambda: clipboard[0])
    app = make_app(cwd, [{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+v")
        await wait_for(lambda: "[image #1 clipboard.png]" in app.editor.text, pilot)
        clipboard[0] = None
        app.copy_to_clipboard("plain words")
        await pilot.press("ctrl+v")
        await wait_for(lambda: "plain words" in app.editor.text, pilot)


def test_image_paths_in_pastes(tmp_path: Path) -> None:
    cwd = project(tmp_path / "p")
    shot = cwd / "shots" / "screen shot.png"
    assert image_attachments.image_path_in(f"file://{str(shot).replace(' ', '%20')}", cwd) == shot
    assert image_attachments.image_path_in(str(shot).replace(" ", "\\ "), cwd) == shot
    assert image_attachments.image_path_in("shots/screen\\ shot.png", cwd) == shot
    assert image_attachments.image_path_in("not an image.txt", cwd) is None
    assert image_attachments.image_path_in(f"{shot}\n{shot}", cwd) is None
    assert os.path.exists(shot)
