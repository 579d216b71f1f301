"""The app's key table: pi-compatible ids, defaults, and overrides from `<agentDir>/keybindings.json`.

The file maps an id to a key or a list of keys, e.g. `{"app.model.select": "ctrl+m", "tui.input.newLine":
["shift+enter", "ctrl+j"]}`. Keys use pi's spelling; modifiers are put in Textual's order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import cast

from textual.binding import Binding, BindingType


@dataclass(frozen=True)
class KeySpec:
    id: str
    keys: tuple[str, ...]
    action: str
    description: str


# App-level actions (Textual bindings with priority, so they work whatever has focus).
APP_KEYS: tuple[KeySpec, ...] = (
    KeySpec("app.interrupt", ("escape",), "interrupt", "Cancel popup / abort / restore queue"),
    KeySpec("app.clear", ("ctrl+c",), "clear_or_quit", "Clear editor (twice to quit)"),
    KeySpec("app.exit", ("ctrl+d",), "exit_if_empty", "Quit when the editor is empty"),
    KeySpec("app.model.select", ("ctrl+l",), "select_model", "Select model"),
    KeySpec("app.model.cycleForward", ("ctrl+p",), "cycle_model", "Next model"),
    KeySpec("app.model.cycleBackward", ("ctrl+shift+p",), "cycle_model_back", "Previous model"),
    # Shift+Tab cycles the permission mode, as in Claude Code; the thinking level has F3.
    KeySpec("app.thinking.cycle", ("f3",), "cycle_thinking", "Cycle thinking level"),
    KeySpec("app.thinking.toggle", ("ctrl+t",), "toggle_thinking", "Collapse/expand thinking"),
    KeySpec("app.permissions.cycle", ("f2", "shift+tab"), "cycle_permissions", "Next permission mode (ask, accept-edits, yolo, plan)"),
    KeySpec("app.tools.expand", ("ctrl+o",), "toggle_tools", "Expand/collapse tool output"),
    KeySpec("app.todos.toggle", ("alt+t",), "toggle_todos", "Fold/unfold the to-do list"),
    KeySpec("app.message.dequeue", ("alt+up",), "dequeue", "Put queued messages back in the editor"),
    KeySpec("app.message.copy", ("ctrl+y",), "copy_last", "Copy the last reply (OSC 52)"),
    KeySpec("app.code.copy", ("alt+y",), "copy_code", "Copy the last code block of the last reply"),
    KeySpec("app.commandPalette", ("f1",), "command_palette", "Command palette"),
    KeySpec("app.editor.external", ("ctrl+g",), "external_editor", "Edit the draft in $VISUAL / $EDITOR"),
    # The transcript scrolls and is searched without the editor losing focus.
    KeySpec("app.transcript.pageUp", ("pageup",), "transcript_page_up", "Scroll the transcript up a page"),
    KeySpec("app.transcript.pageDown", ("pagedown",), "transcript_page_down", "Scroll the transcript down a page"),
    KeySpec("app.transcript.top", ("ctrl+home",), "transcript_top", "Scroll to the top of the transcript"),
    KeySpec("app.transcript.bottom", ("ctrl+end",), "transcript_bottom", "Scroll to the bottom (and follow)"),
    # ctrl+f is taken (follow-up fallback); ctrl+s is free once Textual turns off XON/XOFF flow control.
    KeySpec("app.transcript.find", ("ctrl+s",), "find", "Find in the transcript"),
)

# Editor keys, handled by the prompt editor itself.
EDITOR_KEYS: tuple[KeySpec, ...] = (
    KeySpec("tui.input.submit", ("enter",), "submit", "Send (steer while working)"),
    KeySpec("tui.input.newLine", ("shift+enter", "ctrl+j"), "newline", "New line"),
    # ctrl+f is the fallback: terminals without the kitty protocol send alt+enter as a plain enter.
    KeySpec("app.message.followUp", ("alt+enter", "ctrl+f"), "follow_up", "Queue a follow-up"),
    KeySpec("tui.input.tab", ("tab",), "complete", "Complete path / command"),
)

_MODIFIER_ORDER = ("ctrl", "alt", "shift", "super", "meta", "hyper")


class _LegacyKey(StrEnum):
    AltEnter = "alt+enter"


# Byte sequences of terminals without the kitty keyboard protocol that Textual does not name. Alt+Enter
# arrives as ESC then CR (xterm, VTE/GNOME Terminal, Konsole, Windows Terminal, VS Code, tmux, iTerm2
# and Terminal.app with "Option as Meta"); unnamed, Textual waited ESCDELAY and reported a plain Enter.
LEGACY_SEQUENCES: dict[str, tuple[_LegacyKey, ...]] = {"\x1b\r": (_LegacyKey.AltEnter,)}


def register_legacy_sequences() -> None:
    """Teach Textual's input parser the sequences above (its table is a module-level dict; Textual is
    pinned, and the parser looks sequences up in it as they arrive). An ESC on its own still reaches
    the app as Escape after ESCDELAY (100 ms), as before."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    # Declared a read-only Mapping; at run time it is the dict the parser reads.
    table = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)
    for sequence, keys in LEGACY_SEQUENCES.items():
        table.setdefault(sequence, keys)


def normalize_key(key: str) -> str:
    """`shift+ctrl+p` → `ctrl+shift+p`; `esc` → `escape`; `return` → `enter`."""
    parts = [p.strip().lower() for p in key.split("+") if p.strip()]
    if not parts:
        return key
    *modifiers, name = parts
    name = {"esc": "escape", "return": "enter", "del": "delete"}.get(name, name)
    ordered = sorted(set(modifiers), key=lambda m: _MODIFIER_ORDER.index(m) if m in _MODIFIER_ORDER else 99)
    return "+".join([*ordered, name])


def load_overrides(agent_dir: Path) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    """Read keybindings.json. Returns ({id: keys}, warnings); a broken file changes nothing."""
    path = agent_dir / "keybindings.json"
    if not path.exists():
        return {}, []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {}, [f"Could not read {path}: {exc}"]
    if not isinstance(data, dict):
        return {}, [f"{path} must hold a JSON object"]
    known = {spec.id for spec in (*APP_KEYS, *EDITOR_KEYS)}
    overrides: dict[str, tuple[str, ...]] = {}
    warnings: list[str] = []
    for key_id, value in data.items():
        if key_id not in known:
            warnings.append(f"Unknown keybinding id in {path.name}: {key_id}")
            continue
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            warnings.append(f"Keybinding {key_id} must be a key or a list of keys")
            continue
        overrides[key_id] = tuple(normalize_key(k) for k in keys)
    return overrides, warnings


class KeyTable:
    """The effective keys of every action, after overrides."""

    def __init__(self, overrides: dict[str, tuple[str, ...]] | None = None) -> None:
        self.overrides = overrides or {}

    def keys_for(self, key_id: str) -> tuple[str, ...]:
        if key_id in self.overrides:
            return self.overrides[key_id]
        for spec in (*APP_KEYS, *EDITOR_KEYS):
            if spec.id == key_id:
                return spec.keys
        return ()

    def app_bindings(self) -> list[BindingType]:
        return [
            Binding(",".join(self.keys_for(spec.id)), spec.action, spec.description, show=False, priority=True, id=spec.id)
            for spec in APP_KEYS
            if self.keys_for(spec.id)
        ]

    def editor_action_for(self, key: str) -> str | None:
        for spec in EDITOR_KEYS:
            if key in self.keys_for(spec.id):
                return spec.action
        return None

    def describe(self) -> list[tuple[str, str]]:
        """(keys, description) rows for /hotkeys, editor keys first."""
        rows = [(", ".join(self.keys_for(s.id)), s.description) for s in EDITOR_KEYS]
        rows += [(", ".join(self.keys_for(s.id)), s.description) for s in APP_KEYS]
        rows += [
            ("up (empty editor)", "Previous prompt from history (also of a resumed session)"),
            ("!cmd / !!cmd", "Run bash (!! keeps it out of context)"),
            ("mouse drag", "Select transcript text; copied on release (OSC 52)"),
            ("ctrl+c (text selected)", "Copy the selection (never quits)"),
            ("double click", "Select a whole block (reply, thinking, tool output); copied"),
            ("triple click", "Select the block with everything around it; copied"),
            ("mouse wheel", "Scroll the transcript"),
        ]
        return rows
