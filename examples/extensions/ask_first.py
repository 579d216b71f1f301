"""Example Atomic extension using the extension UI: ask before risky shell commands, and keep notes.

- Before the model runs a risky bash command (`rm -r...f`, `git push --force`, `sudo`, `git reset
  --hard`), a dialog asks whether to run it; "no", Esc, the timeout or an abort block it.
- `/note [text]` asks for a kind (select), the text (input, unless given) and details (editor),
  saves the note in the session, lists the latest notes in a widget above the editor and counts
  them in the status line.
- The terminal title shows the project folder.

Try it:

    atomic -e examples/extensions/ask_first.py

In RPC mode every dialog is an `extension_ui_request` line the client answers with an
`extension_ui_response` (see docs/rpc.md).
"""

from __future__ import annotations

import re
from typing import Any

RISKY = re.compile(
    r"\brm\s+(?=[^;&|]*-[a-zA-Z]*r)(?=[^;&|]*-[a-zA-Z]*f)"
    r"|\bgit\s+push\b[^;&|]*(?:--force\b|\s-f\b)"
    r"|\bgit\s+reset\s+--hard\b"
    r"|(?:^|[;&|]\s*)sudo\b"
)
NOTE_KINDS = ["todo", "idea", "question"]
# How long the confirmation waits before it counts as "no".
CONFIRM_TIMEOUT_S = 120.0


def activate(atomic: Any) -> None:
    notes: list[str] = []

    def show_notes(ctx: Any) -> None:
        ctx.ui.set_widget("notes", [f"• {note}" for note in notes[-3:]] if notes else None)
        ctx.ui.set_status("notes", f"notes: {len(notes)}" if notes else None)

    async def ask_before_risky_bash(payload: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
        if payload["toolName"] != "bash":
            return None
        command = str(payload["input"].get("command", ""))
        if not RISKY.search(command):
            return None
        if not ctx.has_ui:
            return {"block": True, "reason": "Risky command blocked: nobody is there to confirm it."}
        if await ctx.ui.confirm("Run this command?", command, timeout=CONFIRM_TIMEOUT_S):
            return None
        return {"block": True, "reason": "The user did not allow this command."}

    async def note(args: str, ctx: Any) -> None:
        kind = await ctx.ui.select("Kind of note", NOTE_KINDS)
        if kind is None:
            return
        text = args or await ctx.ui.input(f"New {kind}", "one line")
        if not text:
            return
        details = await ctx.ui.editor("Details (ctrl+s to save)", f"{kind}: {text}\n")
        if details is None:
            ctx.ui.notify("Note discarded", "warning")
            return
        notes.append(f"{kind}: {text}")
        atomic.append_entry("note", {"kind": kind, "text": text, "details": details})
        show_notes(ctx)
        ctx.ui.notify(f"Saved {kind} #{len(notes)}")

    def restore(_payload: dict[str, Any], ctx: Any) -> None:
        notes.clear()
        notes.extend(f"{e['data']['kind']}: {e['data']['text']}" for e in atomic.custom_entries("note"))
        show_notes(ctx)
        ctx.ui.set_title(f"atomic · {ctx.cwd.name}")

    atomic.on("tool_call", ask_before_risky_bash)
    atomic.on("session_start", restore)
    atomic.register_command("note", note, description="Save a quick note (kind, text, details)")
