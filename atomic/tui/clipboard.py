"""Copying to the clipboard: always OSC 52 (through the terminal, also over SSH), plus the system clipboard
tool when there is one (pbcopy, wl-copy, xclip, xsel), run off the event loop.

OSC 52 is what most terminals honour (kitty, WezTerm, iTerm2, Windows Terminal, foot, Alacritty, xterm with
`allowWindowOps`); tmux honours it with `set-clipboard on`, and passes it on to the outer terminal with
`allow-passthrough on`, so inside tmux the sequence is also sent wrapped for passthrough.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
import threading
from typing import Any


def osc52(text: str) -> str:
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "\a"


def tmux_passthrough(sequence: str) -> str:
    """Wrap an escape sequence so tmux hands it to the outer terminal (every ESC doubled)."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def system_clipboard_command() -> list[str] | None:
    """The command that puts stdin on the system clipboard here, or None (e.g. over SSH without a display)."""
    if sys.platform == "darwin" and shutil.which("pbcopy"):
        return ["pbcopy"]
    if os.environ.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        return ["wl-copy"]
    if os.environ.get("DISPLAY"):
        if shutil.which("xclip"):
            return ["xclip", "-selection", "clipboard"]
        if shutil.which("xsel"):
            return ["xsel", "--clipboard", "--input"]
    return None


def _run_system_copy(command: list[str], text: str) -> None:
    try:
        subprocess.run(command, input=text.encode("utf-8"), timeout=3, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        pass  # OSC 52 was sent anyway


def copy_text(app: Any, text: str) -> None:
    """Copy `text`: OSC 52 always (Textual's copy_to_clipboard writes it and remembers the text), then the
    system clipboard in a background thread (a clipboard tool may take a while; the UI never waits)."""
    app.copy_to_clipboard(text)
    if app.is_headless:
        return
    driver = app._driver
    if os.environ.get("TMUX") and driver is not None:
        driver.write(tmux_passthrough(osc52(text)))
        driver.flush()
    command = system_clipboard_command()
    if command is not None:
        threading.Thread(target=_run_system_copy, args=(command, text), daemon=True).start()
