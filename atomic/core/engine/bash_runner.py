"""Direct bash requests (`bash` RPC command, `!cmd` in the TUI): running, cancelling, ownership.

Several may run at once; each can be cancelled by its request id, or all together. Each result is
handed to `store_result` with the owner it started in (engine/owned_messages.py stores it there).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from atomic.core.engine.owned_messages import MessageOwner
from atomic.core.messages import BashExecutionMessage
from atomic.core.settings import Settings

if TYPE_CHECKING:
    from atomic.core.bash_exec import BashResult

ChunkCallback = Callable[[str, str], None]
# The output with its colours kept (SGR sequences only), for display; never stored.
DisplayChunkCallback = Callable[[str], None]


class BashRunner:
    def __init__(
        self,
        *,
        cwd: Path,
        settings: Callable[[], Settings],
        owner_here: Callable[[], MessageOwner],
        store_result: Callable[[MessageOwner, BashExecutionMessage], None],
    ) -> None:
        self._cwd = cwd
        # Read at each request: the shell settings may change while the session lives.
        self._settings = settings
        self._owner_here = owner_here
        self._store_result = store_result
        self.tasks: dict[str, asyncio.Task[BashResult]] = {}
        self._counter = itertools.count(1)

    @property
    def is_running(self) -> bool:
        return bool(self.tasks)

    async def run(
        self,
        command: str,
        *,
        request_id: str | None = None,
        on_chunk: ChunkCallback | None = None,
        on_display: DisplayChunkCallback | None = None,
        exclude_from_context: bool = False,
    ) -> BashExecutionMessage:
        from atomic.core.bash_exec import execute_bash

        request_id = request_id or f"bash-{next(self._counter)}"
        while request_id in self.tasks:
            request_id = f"{request_id}-{next(self._counter)}"
        owner = self._owner_here()
        settings = self._settings()
        task = asyncio.ensure_future(
            execute_bash(
                command,
                cwd=self._cwd,
                session_id=owner.session_id,
                request_id=request_id,
                on_chunk=on_chunk or (lambda _c, _t: None),
                shell_path=settings.shell_path,
                command_prefix=settings.shell_command_prefix,
                on_display=on_display,
            )
        )
        self.tasks[request_id] = task
        try:
            result = await asyncio.shield(task)
        finally:
            self.tasks.pop(request_id, None)
        message = BashExecutionMessage(
            command=command,
            output=result.output,
            exit_code=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            full_output_path=result.full_output_path,
            exclude_from_context=True if exclude_from_context else None,
        )
        self._store_result(owner, message)
        return message

    def abort(self, request_id: str | None = None) -> bool:
        """Cancel one request (by id) or all of them. Returns whether anything was cancelled."""
        if request_id is not None:
            task = self.tasks.get(request_id)
            if task is None:
                return False
            task.cancel()
            return True
        for task in list(self.tasks.values()):
            task.cancel()
        return bool(self.tasks)

    async def shutdown(self) -> None:
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # Let each run() store its (cancelled) result before the process exits.
        for _ in range(3):
            await asyncio.sleep(0)
