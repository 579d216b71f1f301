"""`Checkpoints`: the session's component that takes, lists, compares and restores checkpoints.

When a run starts, the state of the project's files is scanned in a worker thread while the model
streams. The first tool call that could write (anything but the read-only built-ins) waits for
that scan and makes it the prompt's checkpoint: its manifest is saved and its `custom` entry
appended then, so it holds the files as they were before the run changed any, and a run that only
reads records nothing. A later prompt of the same run (steering, a follow-up) gets its checkpoint
on demand before its first writing tool call.

All file work runs in threads (`asyncio.to_thread`): the event loop keeps answering meanwhile.
The session builds this component on first use (a run, a command), so start-up never imports it;
the store, scanning and restoring modules are imported when the first file work happens.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import TYPE_CHECKING

from atomic.core.checkpoints import entries
from atomic.core.checkpoints.host import CheckpointHost
from atomic.core.checkpoints.records import (
    ChangedFile,
    CheckpointDiff,
    CheckpointError,
    CheckpointInfo,
    RestoreResult,
    RewindPoint,
    SkippedFile,
)
from atomic.core.events import CheckpointCreated
from atomic.core.messages import UserMessage, user_text
from atomic.core.session.store import SessionStore
from atomic.core.tools.base import Tool

if TYPE_CHECKING:
    from atomic.core.checkpoints.snapshot import Snapshotter
    from atomic.core.checkpoints.store import Manifest

DISABLED = "Checkpoints are disabled (settings: checkpoints.enabled)"
MANIFEST_CACHE_SIZE = 64


def may_change_files(tool: Tool) -> bool:
    """Every tool may write except the built-in ones that never touch the project's files (an
    extension's replacement of `read` is not the built-in, so it counts as writing; `task` runs a
    subagent with writing tools, so it counts too)."""
    from atomic.core.tools.exit_plan import ExitPlanTool
    from atomic.core.tools.find import FindTool
    from atomic.core.tools.grep import GrepTool
    from atomic.core.tools.ls import LsTool
    from atomic.core.tools.read import ReadTool
    from atomic.core.tools.todo import TodoTool
    from atomic.core.tools.web_fetch import WebFetchTool

    read_only: tuple[type[Tool], ...] = (ReadTool, GrepTool, FindTool, LsTool, TodoTool, WebFetchTool, ExitPlanTool)
    # The MCP tool search exists only once its module is loaded (a run with MCP servers): importing it
    # here would load the whole MCP client into every run.
    mcp_tools = sys.modules.get("atomic.core.mcp.tools")
    if mcp_tools is not None:
        read_only += (mcp_tools.McpToolSearch,)
    return not isinstance(tool, read_only)


def _retrieve(task: asyncio.Task[Manifest]) -> None:
    if not task.cancelled():
        task.exception()


def first_line(store: SessionStore, entry_id: str | None) -> str:
    record = store.by_id.get(entry_id) if entry_id else None
    if record is None or not entries.is_user_message(record):
        return ""
    text = user_text(UserMessage.model_validate(record.data["message"]))
    return text.strip().splitlines()[0] if text.strip() else ""


class Checkpoints:
    def __init__(self, host: CheckpointHost) -> None:
        self._host = host
        self._snapshotter: Snapshotter | None = None
        # The scan started with the run, for its first user message (`_early_for`) until a writing
        # tool call makes it that prompt's checkpoint.
        self._early: asyncio.Task[Manifest] | None = None
        self._early_for: str | None = None
        self._prompt_entry: str | None = None  # the latest user message of the running run
        self._checkpointed: set[str] = set()  # user messages of this run that have a checkpoint
        self._write_gate = asyncio.Lock()
        self._restoring = False
        self._manifests: dict[str, Manifest] = {}
        self._pruned = False
        # Why this folder cannot have checkpoints (too many files), once a scan found out.
        self._unusable: str | None = None

    # -------------------------------------------------------------- plumbing

    @property
    def enabled(self) -> bool:
        return self._host.settings.checkpoints.enabled and self._unusable is None

    def _snap(self) -> Snapshotter:
        settings = self._host.settings.checkpoints
        if self._snapshotter is None:
            from atomic.core.checkpoints.snapshot import Snapshotter
            from atomic.core.checkpoints.store import CheckpointStore

            host = self._host
            store = CheckpointStore.for_project(host.agent_dir, host.cwd)
            keep_out = tuple(str(p) for p in (host.agent_dir, host.files.session_dir) if p is not None)
            self._snapshotter = Snapshotter(str(host.cwd), store, settings.max_file_bytes, keep_out)
        self._snapshotter.max_file_bytes = settings.max_file_bytes
        return self._snapshotter

    def _take(self) -> Manifest:
        """A checkpoint, in the calling (worker) thread; prunes old ones once per process."""
        manifest = self._snap().scan(keep=True)
        self._prune_once()
        return manifest

    def _prune_once(self) -> None:
        if not self._pruned:
            self._pruned = True
            with contextlib.suppress(OSError):
                self._snap().store.prune(self._host.settings.checkpoints.keep_days)

    def _record(self, store: SessionStore, manifest: Manifest, entry_id: str | None, kind: entries.CheckpointKind) -> None:
        self._manifests[manifest.checkpoint_id] = manifest
        entries.record(store, manifest.checkpoint_id, entry_id, kind)
        self._host.emit(CheckpointCreated(checkpoint_id=manifest.checkpoint_id, entry_id=entry_id))

    # -------------------------------------------------------------- during a run

    def begin_run(self, prompt_entry: str | None) -> None:
        """Start scanning the files for the prompt that starts this run (kept only if it writes).

        `prompt_entry` is its user message when it was stored before the run began (None when the
        run starts from queued messages it stores itself)."""
        self._prompt_entry = prompt_entry
        self._early_for = prompt_entry
        self._checkpointed = set()
        self._early = asyncio.ensure_future(asyncio.to_thread(self._scan_early)) if self.enabled else None
        if self._early is not None:
            # A run that never writes never awaits it: its failure must not be reported as lost.
            self._early.add_done_callback(_retrieve)

    def _scan_early(self) -> Manifest:
        # The copies are stored now, the manifest only if a writing tool call comes.
        return self._snap().scan(keep=True, save=False)

    def user_message_stored(self, entry_id: str) -> None:
        """A user message the running run stored (steering, a follow-up, its first queued one)."""
        if self._early_for is None and self._early is not None:
            self._early_for = entry_id
        self._prompt_entry = entry_id

    async def before_tool(self, tool: Tool) -> None:
        """Called before every tool call runs: a writing tool waits for its prompt's checkpoint."""
        if not self.enabled or not may_change_files(tool):
            return
        async with self._write_gate:
            entry_id = self._prompt_entry
            if entry_id is None or entry_id in self._checkpointed:
                return
            self._checkpointed.add(entry_id)
            store = self._host.store
            early, self._early = self._early, None
            try:
                if early is not None and self._early_for == entry_id:
                    manifest = await asyncio.shield(early)
                    await asyncio.shield(asyncio.to_thread(self._save, manifest))
                else:
                    manifest = await asyncio.shield(asyncio.to_thread(self._take))
            except Exception as exc:  # the tool still runs; the user is told there is no way back
                from atomic.core.checkpoints.snapshot import TooManyFiles

                if isinstance(exc, TooManyFiles):
                    self._unusable = str(exc)
                self._host.notify_once(f"checkpoint-failed:{exc}", f"Checkpoint failed: {exc}")
                return
            if store is self._host.store:
                self._record(store, manifest, entry_id, "prompt")

    def _save(self, manifest: Manifest) -> None:
        self._snap().store.save_manifest(manifest)
        self._prune_once()

    async def settle(self) -> None:
        """Wait for a scan started with the last run (tests; a restore waits for it anyway)."""
        early = self._early
        if early is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(early)

    # -------------------------------------------------------------- reading

    def _require_enabled(self) -> None:
        if self._unusable is not None:
            raise CheckpointError(self._unusable)
        if not self.enabled:
            raise CheckpointError(DISABLED)

    def _manifest(self, checkpoint_id: str) -> Manifest:
        """A stored manifest (raises CheckpointMissing); they never change, so they are kept."""
        cached = self._manifests.get(checkpoint_id)
        if cached is None:
            cached = self._snap().store.load_manifest(checkpoint_id)
            if len(self._manifests) >= MANIFEST_CACHE_SIZE:
                self._manifests.pop(next(iter(self._manifests)))
            self._manifests[checkpoint_id] = cached
        return cached

    def _known(self, checkpoint_id: str) -> None:
        if not any(e.checkpoint_id == checkpoint_id for e in entries.recorded(self._host.store)):
            raise CheckpointError(f"Unknown checkpoint: {checkpoint_id}")

    async def listed(self) -> list[CheckpointInfo]:
        """Every checkpoint of the session file, all branches, oldest first (pruned ones left out)."""
        self._require_enabled()
        await self.settle()
        store = self._host.store
        recorded = entries.recorded(store)

        def counts() -> list[tuple[entries.CheckpointEntry, int]]:
            from atomic.core.checkpoints.diff import changes
            from atomic.core.checkpoints.store import CheckpointMissing

            stored: list[tuple[entries.CheckpointEntry, Manifest]] = []
            for entry in recorded:
                with contextlib.suppress(CheckpointMissing):
                    stored.append((entry, self._manifest(entry.checkpoint_id)))
            if not stored:
                return []
            current = self._snap().scan(keep=False)
            following = [m for _, m in stored[1:]] + [current]
            return [(entry, len(changes(m, nxt))) for (entry, m), nxt in zip(stored, following, strict=True)]

        return [
            CheckpointInfo(
                checkpoint_id=entry.checkpoint_id,
                entry_id=entry.entry_id,
                kind=entry.kind,
                timestamp=entry.timestamp,
                text=first_line(store, entry.entry_id),
                files=count,
            )
            for entry, count in await asyncio.to_thread(counts)
        ]

    async def rewind_points(self) -> list[RewindPoint]:
        """The user messages of the current branch with the checkpoint that restores code to before
        each, and how many files its run changed."""
        store = self._host.store
        counts = {c.checkpoint_id: c.files for c in await self.listed()} if self.enabled else {}
        points = []
        for record in store.path_to():
            if entries.is_user_message(record):
                checkpoint = entries.checkpoint_for_prompt(store, record.id) if self.enabled else None
                own = checkpoint is not None and any(
                    e.checkpoint_id == checkpoint and e.entry_id == record.id for e in entries.recorded(store)
                )
                points.append(
                    RewindPoint(
                        entry_id=record.id,
                        text=first_line(store, record.id),
                        checkpoint_id=checkpoint,
                        files=counts.get(checkpoint, 0) if own and checkpoint else 0,
                    )
                )
        return points

    async def diff(self, checkpoint_id: str) -> CheckpointDiff:
        self._require_enabled()
        self._known(checkpoint_id)
        await self.settle()

        def compare() -> CheckpointDiff:
            from atomic.core.checkpoints.diff import changes, unified_diff
            from atomic.core.checkpoints.store import CheckpointMissing

            try:
                old = self._manifest(checkpoint_id)
            except CheckpointMissing as exc:
                raise CheckpointError(str(exc)) from exc
            snapshotter = self._snap()
            differences = changes(old, snapshotter.scan(keep=False))
            text = unified_diff(snapshotter.folder, snapshotter.store, old, differences)
            return CheckpointDiff(files=tuple(ChangedFile(d.path, d.status) for d in differences), diff=text)

        return await asyncio.to_thread(compare)

    # -------------------------------------------------------------- restoring

    def _refuse_while_busy(self) -> None:
        host = self._host
        if host.is_streaming:
            raise CheckpointError("Cannot restore files while the agent is running: abort first")
        if host.compaction.is_compacting:
            raise CheckpointError("Cannot restore files while compacting: abort first")
        if host.bash.is_running:
            raise CheckpointError("Cannot restore files while a bash command runs: abort first")
        if self._restoring:
            raise CheckpointError("Another restore is in progress")

    def checkpoint_for_prompt(self, entry_id: str) -> str:
        """The checkpoint that restores files to before the user message `entry_id`."""
        self._require_enabled()
        store = self._host.store
        record = store.by_id.get(entry_id)
        if record is None:
            raise CheckpointError(f"Entry not found: {entry_id}")
        if not entries.is_user_message(record):
            raise CheckpointError(f"Entry {entry_id} is not a user message")
        checkpoint = entries.checkpoint_for_prompt(store, entry_id)
        if checkpoint is None:
            raise CheckpointError(f"No checkpoint was recorded for entry {entry_id}")
        return checkpoint

    async def restore(self, checkpoint_id: str, *, record_undo: bool = True) -> RestoreResult:
        """Put the files back as `checkpoint_id` holds them, after taking a checkpoint to undo it.

        With `record_undo` False the caller records the undo checkpoint (`record_undo`) where it
        belongs (fork: in the new session file)."""
        self._require_enabled()
        self._refuse_while_busy()
        self._known(checkpoint_id)
        self._restoring = True
        try:
            await self.settle()

            def work() -> tuple[Manifest, RestoreResult]:
                from atomic.core.checkpoints.restore import restore
                from atomic.core.checkpoints.store import CheckpointMissing

                try:
                    target = self._manifest(checkpoint_id)
                except CheckpointMissing as exc:
                    raise CheckpointError(str(exc)) from exc
                snapshotter = self._snap()
                with snapshotter.lock:
                    undo = self._take()
                    outcome = restore(snapshotter.folder, snapshotter.store, target, undo)
                result = RestoreResult(
                    restored=tuple(outcome.restored),
                    deleted=tuple(outcome.deleted),
                    skipped=tuple(SkippedFile(p, r) for p, r in outcome.skipped),
                    undo_checkpoint_id=undo.checkpoint_id,
                )
                return undo, result

            undo, result = await asyncio.to_thread(work)
        finally:
            self._restoring = False
        self._manifests[undo.checkpoint_id] = undo
        if record_undo:
            self.record_undo(result)
        return result

    def record_undo(self, result: RestoreResult) -> None:
        """Record the checkpoint taken before a restore in the active session file."""
        manifest = self._manifests.get(result.undo_checkpoint_id)
        if manifest is not None:
            self._record(self._host.store, manifest, None, "restore")
