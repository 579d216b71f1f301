"""Ctrl+G: the draft goes to `$VISUAL` / `$EDITOR` in a temporary file; what is saved comes back.

The app suspends itself (the editor gets the terminal as it was before Atomic started) and resumes
with the screen redrawn. Without a terminal to hand over (tests, headless), `run_editor` is still
called: it is the one place a test replaces.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from textual.app import App, SuspendNotSupported

FALLBACK_EDITOR = "vi"


def editor_command() -> list[str]:
    """`$VISUAL`, else `$EDITOR`, else vi; split like a shell would (`code --wait`)."""
    raw = os.environ.get("VISUAL") or os.environ.get("EDITOR") or FALLBACK_EDITOR
    try:
        words = shlex.split(raw)
    except ValueError:
        words = [raw]
    return words or [FALLBACK_EDITOR]


def run_editor(command: list[str], path: Path) -> int:
    try:
        return subprocess.call([*command, str(path)])
    except OSError:
        return 127


def edit_in_external_editor(app: App[int], text: str) -> str | None:
    """The edited text, or None when the editor failed (the draft is then left as it was)."""
    handle, name = tempfile.mkstemp(prefix="atomic-draft-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        command = editor_command()
        try:
            with app.suspend():
                code = run_editor(command, path)
        except SuspendNotSupported:  # no terminal to hand over (headless)
            code = run_editor(command, path)
        if code != 0:
            app.notify(f"{command[0]} exited with code {code}: the draft is unchanged", severity="warning")
            return None
        edited = path.read_text(encoding="utf-8")
        # Editors end a file with a newline the user did not type.
        return edited[:-1] if edited.endswith("\n") else edited
    except (OSError, UnicodeDecodeError) as exc:
        app.notify(f"Could not edit the draft: {exc}", severity="error")
        return None
    finally:
        path.unlink(missing_ok=True)
