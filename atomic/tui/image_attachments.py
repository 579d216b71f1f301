"""Images in the editor: a pasted or dragged image path, an `@` of an image file, or Ctrl+V with an
image on the system clipboard become an attachment, shown in the editor as a chip `[image #1 cat.png]`.

On send, chips leave the text and their images go with the message as image content (the engine
adds its note for models that take no images). Reading the clipboard runs a tool (wl-paste, xclip,
pngpaste) off the event loop.
"""

from __future__ import annotations

import base64
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
MAX_IMAGE_BYTES = 20 * 1024 * 1024
CHIP = re.compile(r"\[image #(\d+) [^\]\n]*\]")
_AT_IMAGE = re.compile(r"(?:^|(?<=\s))@(\S+\.(?:png|jpe?g|gif|webp))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Attachment:
    number: int
    name: str
    data: bytes
    mime_type: str

    @property
    def chip(self) -> str:
        return f"[image #{self.number} {self.name}]"

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")


def image_path_in(text: str, cwd: Path) -> Path | None:
    """The image file a paste names (a dragged file: quoted, `file://`, or with escaped spaces), if any."""
    candidate = text.strip()
    if not candidate or "\n" in candidate:
        return None
    if candidate.startswith("file://"):
        candidate = unquote(urlparse(candidate).path)
    else:
        try:
            words = shlex.split(candidate)
        except ValueError:
            return None
        if len(words) != 1:
            return None
        candidate = words[0]
    path = Path(candidate).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.suffix.lower() not in IMAGE_TYPES:
        return None
    try:
        return path if path.is_file() and path.stat().st_size <= MAX_IMAGE_BYTES else None
    except OSError:
        return None


def read_image(path: Path) -> tuple[bytes, str] | None:
    try:
        return path.read_bytes(), IMAGE_TYPES[path.suffix.lower()]
    except (OSError, KeyError):
        return None


def at_image_paths(text: str, cwd: Path) -> list[Path]:
    """The image files `@`-mentioned in a prompt (they are attached; the mention stays in the text)."""
    found = []
    for match in _AT_IMAGE.finditer(text):
        path = image_path_in(match.group(1), cwd)
        if path is not None and path not in found:
            found.append(path)
    return found


def _clipboard_commands() -> list[list[str]]:
    commands = []
    if shutil.which("wl-paste"):
        commands.append(["wl-paste", "--no-newline", "--type", "image/png"])
    if shutil.which("xclip"):
        commands.append(["xclip", "-selection", "clipboard", "-target", "image/png", "-out"])
    if shutil.which("pngpaste"):
        commands.append(["pngpaste", "-"])
    return commands


def clipboard_image() -> bytes | None:
    """A PNG from the system clipboard, or None (no image there, or no tool to read it). Blocking."""
    for command in _clipboard_commands():
        try:
            result = subprocess.run(command, capture_output=True, timeout=3, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if result.returncode == 0 and result.stdout.startswith(b"\x89PNG") and len(result.stdout) <= MAX_IMAGE_BYTES:
            return result.stdout
    return None
