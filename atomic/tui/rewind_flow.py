"""Going back to before a prompt in the TUI: /rewind (and Esc twice), /undo, and the file restore
/tree and /fork offer.

Every restore ends with a line in the transcript (display only: the session gets no message)
saying what was restored and how to undo it (`/rewind undo`). Engine refusals (the agent is
running, checkpoints are disabled) are shown as errors; nothing moves then.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from atomic.tui.formatting import first_line
from atomic.tui.host import AppHost
from atomic.tui.screens.rewind_screen import RestoreChoiceScreen, RewindAction, RewindScreen, files_word

if TYPE_CHECKING:
    from atomic.core.contract import ChangedFile, RestoreResult, RewindPoint

UNDO_HINT = "/rewind undo puts the files back as they were just before this restore."


def restore_text(result: RestoreResult, before: str) -> str:
    """The transcript line after a restore."""
    done = len(result.restored) + len(result.deleted)
    if not done and not result.skipped:
        return f"Files already as they were before “{first_line(before, 60)}”: nothing to restore."
    parts = [f"Restored {files_word(done)} to before “{first_line(before, 60)}”."]
    if result.restored:
        parts.append("Written back: " + ", ".join(result.restored[:8]) + (" …" if len(result.restored) > 8 else ""))
    if result.deleted:
        parts.append("Deleted: " + ", ".join(result.deleted[:8]) + (" …" if len(result.deleted) > 8 else ""))
    if result.skipped:
        parts.append("Could not restore: " + "; ".join(f"{s.path} ({s.reason})" for s in result.skipped[:8]))
    parts.append(UNDO_HINT)
    return "\n".join(parts)


class RewindFlow:
    def __init__(self, app: AppHost) -> None:
        self.app = app

    def _error(self, exc: Exception) -> None:
        self.app.notify(str(exc) or type(exc).__name__, title="Error", severity="error")

    async def _changed_files(self, point: RewindPoint) -> tuple[ChangedFile, ...] | None:
        if point.checkpoint_id is None:
            return None
        try:
            return (await self.app.engine.diff_checkpoint(point.checkpoint_id)).files
        except Exception:  # a pruned checkpoint: the conversation can still go back
            return None

    async def _points(self) -> list[RewindPoint] | None:
        try:
            return await self.app.engine.rewind_points()
        except Exception as exc:
            self._error(exc)
            return None

    # -------------------------------------------------------------- /rewind

    async def open(self, args: str = "") -> None:
        if args.strip() == "undo":
            await self.undo_last_restore()
            return
        points = await self._points()
        if points is None:
            return
        by_id = {p.entry_id: p for p in points}

        async def chosen(entry_id: str | None) -> None:
            if entry_id is not None and entry_id in by_id:
                await self._offer(by_id[entry_id])

        self.app.push_screen(RewindScreen(points), chosen)

    async def _offer(self, point: RewindPoint) -> None:
        files = await self._changed_files(point)

        async def chosen(action: RewindAction | None) -> None:
            if action is not None and action != "cancel":
                await self.apply(point, action)

        self.app.push_screen(RestoreChoiceScreen(point.text, files), chosen)

    async def apply(self, point: RewindPoint, action: RewindAction) -> None:
        engine = self.app.engine
        try:
            result = None
            if action in ("both", "code") and point.checkpoint_id is not None:
                result = await engine.restore_checkpoint(point.checkpoint_id)
            if action in ("both", "conversation"):
                text = await engine.sessions.navigate_to(point.entry_id)
                if text is not None:
                    self.app.restore_to_editor([text])
        except Exception as exc:
            self._error(exc)
            return
        finally:
            self.app.after_state_change()
        if result is not None:
            self.app.renderer.note(restore_text(result, point.text))
        elif action == "conversation":
            self.app.notify("Conversation moved back; files unchanged")

    # -------------------------------------------------------------- /undo and /rewind undo

    async def undo(self) -> None:
        """Files and conversation back to before the last prompt; the prompt returns to the editor."""
        points = await self._points()
        if not points:
            self.app.notify("Nothing to undo yet", severity="warning")
            return
        await self.apply(points[-1], "both" if points[-1].checkpoint_id else "conversation")

    async def undo_last_restore(self) -> None:
        engine = self.app.engine
        try:
            listed = await engine.checkpoints()
            undo = next((c for c in reversed(listed) if c.kind == "restore"), None)
            if undo is None:
                self.app.notify("No restore to undo", severity="warning")
                return
            result = await engine.restore_checkpoint(undo.checkpoint_id)
        except Exception as exc:
            self._error(exc)
            return
        self.app.after_state_change()
        done = len(result.restored) + len(result.deleted)
        text = f"Undid the last restore: {files_word(done)} put back as they were before it."
        if result.skipped:
            text += "\nCould not restore: " + "; ".join(f"{s.path} ({s.reason})" for s in result.skipped[:8])
        self.app.renderer.note(text)

    # -------------------------------------------------------------- /tree and /fork

    async def _point_for(self, entry_id: str) -> RewindPoint | None:
        """The prompt `entry_id` on the current branch, or its own checkpoint on another one."""
        from atomic.core.contract import RewindPoint

        points = await self._points()
        point = next((p for p in points or [] if p.entry_id == entry_id), None)
        if point is not None:
            return point
        try:
            listed = await self.app.engine.checkpoints()
        except Exception:
            return None
        own = next((c for c in listed if c.entry_id == entry_id and c.kind == "prompt"), None)
        return None if own is None else RewindPoint(entry_id, own.text, own.checkpoint_id, own.files)

    async def offer_files(self, entry_id: str, move: Callable[[], Awaitable[None]]) -> None:
        """Ask whether the files go back too before `move` runs (navigate or fork to the user
        message `entry_id`); without a checkpoint that changes anything, just move."""
        if not self.app.engine.settings.checkpoints.enabled:
            await move()
            return
        point = await self._point_for(entry_id)
        files = await self._changed_files(point) if point is not None else None
        if point is None or not files:
            await move()
            return

        async def chosen(action: RewindAction | None) -> None:
            if action is None or action == "cancel":
                return
            result = None
            try:
                if action == "both" and point.checkpoint_id is not None:
                    result = await self.app.engine.restore_checkpoint(point.checkpoint_id)
                await move()
            except Exception as exc:
                self._error(exc)
                return
            finally:
                self.app.after_state_change()
            if result is not None:
                self.app.renderer.note(restore_text(result, point.text))

        labels: dict[RewindAction, str] = {"both": "Restore the files too", "conversation": "Keep the files as they are"}
        self.app.push_screen(RestoreChoiceScreen(point.text, files, ("both", "conversation", "cancel"), labels), chosen)
