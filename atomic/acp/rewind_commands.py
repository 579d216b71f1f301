"""/rewind and /undo for ACP clients: the TUI's rewind without a picker, answered as a message.

- `/rewind` lists the prompts of the current branch, numbered, with how many files each changed.
- `/rewind N` restores the files to before prompt N (the conversation stays).
- `/rewind undo` puts the files back as they were just before the last restore.
- `/undo` restores the files to before the last prompt and moves the conversation back before it.
"""

from __future__ import annotations

from atomic.core.contract import Engine, RestoreResult

REWIND_COMMANDS: tuple[tuple[str, str], ...] = (
    ("rewind", "Files back to before a prompt: /rewind lists them, /rewind N restores, /rewind undo"),
    ("undo", "Undo the last prompt: its file changes and the conversation"),
)


def _summary(result: RestoreResult) -> str:
    lines = [f"Restored {len(result.restored)} file(s), deleted {len(result.deleted)}."]
    lines += [f"- {path} (restored)" for path in result.restored[:20]]
    lines += [f"- {path} (deleted)" for path in result.deleted[:20]]
    lines += [f"- {s.path}: not restored ({s.reason})" for s in result.skipped[:20]]
    lines.append("`/rewind undo` puts the files back as they were just before this.")
    return "\n".join(lines)


async def _listing(engine: Engine) -> str:
    points = await engine.rewind_points()
    if not points:
        return "No prompts to rewind to yet."
    rows = [
        f"{n}. {p.text or '(no text)'} ({p.files} file(s) changed)" if p.checkpoint_id else f"{n}. {p.text} (no checkpoint)"
        for n, p in enumerate(points, start=1)
    ]
    return "Prompts of this branch (`/rewind N` restores the files to before prompt N):\n" + "\n".join(rows)


async def rewind_command(engine: Engine, word: str, rest: str) -> str | None:
    """The reply to `/rewind ...` or `/undo`, or None when `word` is neither. Refusals (the agent is
    running, checkpoints are disabled, unknown prompt) are replies too."""
    if word not in ("/rewind", "/undo"):
        return None
    try:
        argument = rest.strip()
        if word == "/undo":
            points = await engine.rewind_points()
            if not points:
                return "Nothing to undo yet."
            last = points[-1]
            result = await engine.restore_checkpoint(last.checkpoint_id) if last.checkpoint_id else None
            await engine.sessions.navigate_to(last.entry_id)
            moved = f"The conversation is back to before: {last.text}"
            return moved if result is None else _summary(result) + "\n" + moved
        if not argument:
            return await _listing(engine)
        if argument == "undo":
            undo = next((c for c in reversed(await engine.checkpoints()) if c.kind == "restore"), None)
            if undo is None:
                return "No restore to undo."
            return _summary(await engine.restore_checkpoint(undo.checkpoint_id))
        points = await engine.rewind_points()
        if not argument.isdigit() or not 1 <= int(argument) <= len(points):
            return f"Usage: /rewind N, with N from 1 to {len(points)} (`/rewind` lists them)."
        return _summary(await engine.restore_files_before(points[int(argument) - 1].entry_id))
    except Exception as exc:  # the engine's refusal, told to the user
        return f"Cannot rewind: {exc}"
