"""The prompt editor: a multi-line TextArea with send/newline keys, history, paste collapse and bash mode."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from textual import events
from textual.message import Message
from textual.widgets import TextArea

from atomic.tui.blink_timeout import BlinkTimeout
from atomic.tui.image_attachments import CHIP, Attachment, at_image_paths, image_path_in, read_image
from atomic.tui.keybindings import KeyTable

HISTORY_LIMIT = 100
PASTE_LINE_LIMIT = 10
PASTE_CHAR_LIMIT = 1000
_PASTE_MARKER = re.compile(r"\[paste #(\d+) (?:\+\d+ lines|\d+ chars)\]")


def split_pastes(typed: str, pastes: dict[int, str]) -> list[str | tuple[int, str]]:
    """`typed` cut at its paste markers: plain text, and (number, pasted text) for each marker."""
    parts: list[str | tuple[int, str]] = []
    position = 0
    for match in _PASTE_MARKER.finditer(typed):
        number = int(match.group(1))
        if number not in pastes:
            continue
        if match.start() > position:
            parts.append(typed[position : match.start()])
        parts.append((number, pastes[number]))
        position = match.end()
    if position < len(typed):
        parts.append(typed[position:])
    return parts


@dataclass
class PromptHistory:
    """Sent prompts, newest last; consecutive duplicates are stored once.

    `typed` is what was sent in this run of the app; `entries` is what Up walks through: the prompts of
    the open session (loaded when a session is opened) with this run's other prompts before them.
    """

    entries: list[str]
    index: int | None = None  # position while browsing, None when editing fresh text
    typed: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[:-HISTORY_LIMIT]
            self.typed.append(text)
            del self.typed[:-HISTORY_LIMIT]
        self.index = None

    def load_session(self, prompts: list[str]) -> None:
        """A session was opened (`-c`, /resume, /new, /tree …): its prompts become the newest entries, so
        Up recalls them first; prompts typed this run that it does not hold stay behind them."""
        in_session = set(prompts)
        entries: list[str] = []
        for text in [*(t for t in self.typed if t not in in_session), *prompts]:
            if text.strip() and (not entries or entries[-1] != text):
                entries.append(text)
        self.entries = entries[-HISTORY_LIMIT:]
        self.index = None

    def keep_draft(self, text: str) -> None:
        """A draft cleared without being sent (Ctrl+C): Up brings it back, like a sent prompt."""
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[:-HISTORY_LIMIT]
        self.index = None

    def previous(self) -> str | None:
        if not self.entries:
            return None
        self.index = len(self.entries) - 1 if self.index is None else max(0, self.index - 1)
        return self.entries[self.index]

    def next(self) -> str | None:
        if self.index is None:
            return None
        if self.index >= len(self.entries) - 1:
            self.index = None
            return ""
        self.index += 1
        return self.entries[self.index]


class PromptEditor(TextArea):
    """Posts `Submitted` on Enter (or follow-up key); everything else edits text."""

    PAINT_AT_ONCE = True  # typed text is painted without waiting for the next frame tick (main_screen.py)

    DEFAULT_CSS = """
    PromptEditor {
        height: auto; min-height: 3; max-height: 12; margin: 0 1;
        border: round $thinking-off; background: $background; padding: 0 1;
    }
    PromptEditor:focus { border: round $thinking-off; }
    PromptEditor.level-minimal, PromptEditor.level-minimal:focus { border: round $thinking-minimal; }
    PromptEditor.level-low, PromptEditor.level-low:focus { border: round $thinking-low; }
    PromptEditor.level-medium, PromptEditor.level-medium:focus { border: round $thinking-medium; }
    PromptEditor.level-high, PromptEditor.level-high:focus { border: round $thinking-high; }
    PromptEditor.level-xhigh, PromptEditor.level-xhigh:focus { border: round $thinking-xhigh; }
    PromptEditor.level-max, PromptEditor.level-max:focus { border: round $thinking-max; }
    PromptEditor.-yolo, PromptEditor.-yolo:focus { border: round $error; }
    PromptEditor.-bash-mode, PromptEditor.-bash-mode:focus { border: round $bash-mode; }
    PromptEditor .text-area--cursor-line { background: transparent; }
    """

    class Submitted(Message):
        """The editor was sent. It is already empty: keys typed after Enter start the next message."""

        def __init__(
            self,
            text: str,
            follow_up: bool,
            typed: str = "",
            pastes: dict[int, str] | None = None,
            images: list[Attachment] | None = None,
        ) -> None:
            super().__init__()
            self.images = list(images or [])  # chips in the editor and `@` image files, in order
            self.text = text  # with pastes expanded
            self.follow_up = follow_up
            self.typed = typed or text  # as it was in the editor (paste markers kept), for history
            self.pastes = dict(pastes or {})  # what the markers in `typed` stand for

    class ImagePasteRequested(Message):
        """Ctrl+V: the app looks for an image on the system clipboard (off the loop), else pastes text."""

    class SuspendRequested(Message):
        """Ctrl+Z with nothing to undo: the app suspends itself."""

    def __init__(self, keys: KeyTable | None = None, *, id: str | None = None) -> None:
        super().__init__(
            "",
            id=id,
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            highlight_cursor_line=False,
        )
        self.keys = keys or KeyTable()
        self.prompt_history = PromptHistory([])
        self.pastes: dict[int, str] = {}
        self._paste_counter = 0
        self.attachments: dict[int, Attachment] = {}
        self._image_counter = 0
        # The project folder, for dragged relative paths and `@` image files (set by the app).
        self.cwd: Path | None = None
        # Set by the app: returns True when an open completion popup consumed the key.
        self.popup_key_handler: Callable[[str], bool] | None = None
        self.level_class = ""
        # Set by the app once it knows whether the cursor blinks (see blink_timeout.py).
        self.blink_timeout: BlinkTimeout | None = None

    # ------------------------------------------------------------------ text helpers

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)

    def expanded_text(self) -> str:
        """The text with every paste marker replaced by what was pasted."""

        def expand(match: re.Match[str]) -> str:
            return self.pastes.get(int(match.group(1)), match.group(0))

        return _PASTE_MARKER.sub(expand, self.text)

    def attach_image(self, data: bytes, mime_type: str, name: str) -> Attachment:
        """Add an image and put its chip at the cursor."""
        self._image_counter += 1
        attachment = Attachment(self._image_counter, name, data, mime_type)
        self.attachments[attachment.number] = attachment
        self.insert(attachment.chip)
        return attachment

    def images_to_send(self, typed: str) -> list[Attachment]:
        """The chips still in the text, then the `@`-mentioned image files not attached already."""
        chosen = [self.attachments[int(m.group(1))] for m in CHIP.finditer(typed) if int(m.group(1)) in self.attachments]
        if self.cwd is not None:
            for path in at_image_paths(typed, self.cwd):
                read = read_image(path)
                if read is not None:
                    self._image_counter += 1
                    chosen.append(Attachment(self._image_counter, path.name, read[0], read[1]))
        return chosen

    def clear_all(self) -> None:
        self.load_text("")
        self.pastes.clear()
        self.attachments.clear()
        self.prompt_history.index = None

    def clear_draft(self) -> None:
        """Ctrl+C: empty the editor, but as an edit (Ctrl+Z undoes it) and kept for Up. Paste markers
        stay resolvable, so an undone draft still sends what was pasted."""
        text = self.text
        if not text:
            return
        self.prompt_history.keep_draft(text)
        self.delete((0, 0), self.document.end)

    def submit(self, follow_up: bool = False) -> None:
        """Take the text out of the editor now, in this key's handler. The app handles `Submitted` a few
        messages later; keys that arrive meanwhile (a fast typist) land in the emptied editor and belong
        to the next message, instead of being wiped with the sent text."""
        typed = self.text
        if not typed.strip():
            return
        images = self.images_to_send(typed)
        # Chips are the images themselves: they leave the text the model reads.
        text = CHIP.sub("", self.expanded_text()).strip() if images else self.expanded_text()
        pastes = dict(self.pastes)
        self.prompt_history.add(typed)
        self.clear_all()
        self.post_message(self.Submitted(text, follow_up=follow_up, typed=typed, pastes=pastes, images=images))

    def set_thinking_level(self, level: str) -> None:
        if self.level_class:
            self.remove_class(self.level_class)
        self.level_class = f"level-{level}"
        self.add_class(self.level_class)

    # ------------------------------------------------------------------ keys

    async def _on_key(self, event: events.Key) -> None:
        if self.blink_timeout is not None:
            self.blink_timeout.touch()
        key = event.key
        # While Up/Down walk through history, a recalled `/command` must not hand them to the popup.
        browsing = self.prompt_history.index is not None and key in ("up", "down")
        if (
            not browsing
            and self.popup_key_handler is not None
            and key in ("up", "down", "tab", "enter")
            and self.popup_key_handler(key)
        ):
            event.stop()
            event.prevent_default()
            return
        if key == "ctrl+v":
            event.stop()
            event.prevent_default()
            self.post_message(self.ImagePasteRequested())
            return
        if key == "ctrl+z" and not self.history.undo_stack:
            # Nothing to undo: Ctrl+Z is the terminal's suspend, as in a shell (`fg` comes back).
            event.stop()
            event.prevent_default()
            self.post_message(self.SuspendRequested())
            return
        action = self.keys.editor_action_for(key)
        if action in ("submit", "follow_up"):
            event.stop()
            event.prevent_default()
            self.submit(follow_up=action == "follow_up")
            return
        if action == "newline":
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if key == "up" and (not self.text or self.prompt_history.index is not None) and self.cursor_location[0] == 0:
            previous = self.prompt_history.previous()
            if previous is not None:
                event.stop()
                event.prevent_default()
                self.set_text(previous)
                return
        if key == "down" and self.prompt_history.index is not None and self.cursor_location[0] == self.document.line_count - 1:
            following = self.prompt_history.next()
            if following is not None:
                event.stop()
                event.prevent_default()
                self.set_text(following)
                return
        # Not ours: TextArea's own key handler runs next (Textual walks the MRO until prevent_default).

    async def _on_paste(self, event: events.Paste) -> None:
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        image = image_path_in(text, self.cwd) if self.cwd is not None else None
        read = read_image(image) if image is not None else None
        if image is not None and read is not None:
            # A dragged (or pasted) image file: attached as the image, not as its path.
            event.stop()
            event.prevent_default()
            self.attach_image(read[0], read[1], image.name)
            return
        line_count = text.count("\n") + 1
        if line_count > PASTE_LINE_LIMIT or len(text) > PASTE_CHAR_LIMIT:
            event.stop()
            event.prevent_default()
            self._paste_counter += 1
            self.pastes[self._paste_counter] = text
            marker = (
                f"[paste #{self._paste_counter} +{line_count} lines]"
                if line_count > PASTE_LINE_LIMIT
                else f"[paste #{self._paste_counter} {len(text)} chars]"
            )
            self.insert(marker)
            return
        event.stop()
        # Otherwise TextArea's own paste handler runs next (Textual calls each class's handler in MRO order).

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.set_class(self.text.startswith("!"), "-bash-mode")
