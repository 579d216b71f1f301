"""Direct bash requests (`bash` RPC command, `!cmd` in the TUI).

Each request belongs to the session it started in: its BashExecutionMessage is stored exactly once
there, even when the active session is replaced while it runs. Several may run at once; each can be
cancelled by its request id, or all together.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from atomic.core.messages import BashExecutionMessage

if TYPE_CHECKING:
    from atomic.core.engine.session import AgentSession

ChunkCallback = Callable[[str, str], None]


class BashControls:
    def _init_bash(self: AgentSession) -> None:
        self.bash_tasks: dict[str, asyncio.Task[Any]] = {}
        self._bash_counter = itertools.count(1)

    @property
    def is_bash_running(self: AgentSession) -> bool:
        return bool(self.bash_tasks)

    async def run_bash(
        self: AgentSession,
        command: str,
        *,
        request_id: str | None = None,
        on_chunk: ChunkCallback | None = None,
        exclude_from_context: bool = False,
    ) -> BashExecutionMessage:
        from atomic.core.bash_exec import execute_bash

        request_id = request_id or f"bash-{next(self._bash_counter)}"
        while request_id in self.bash_tasks:
            request_id = f"{request_id}-{next(self._bash_counter)}"
        owner = self.store
        task = asyncio.ensure_future(
            execute_bash(
                command,
                cwd=self.cwd,
                session_id=owner.session_id,
                request_id=request_id,
                on_chunk=on_chunk or (lambda _c, _t: None),
                shell_path=self.settings.shell_path,
                command_prefix=self.settings.shell_command_prefix,
            )
        )
        self.bash_tasks[request_id] = task
        try:
            result = await asyncio.shield(task)
        finally:
            self.bash_tasks.pop(request_id, None)
        message = BashExecutionMessage(
            command=command,
            output=result.output,
            exit_code=result.exit_code,
            cancelled=result.cancelled,
            truncated=result.truncated,
            full_output_path=result.full_output_path,
            exclude_from_context=True if exclude_from_context else None,
        )
        self._store_bash_message(owner, message)
        return message

    def _store_bash_message(self: AgentSession, owner: Any, message: BashExecutionMessage) -> None:
        if owner is not self.store:
            owner.append("message", message=message.to_wire())
        elif self.is_streaming:
            self.deferred_messages.append((owner, message))
        else:
            self.record_message(message)

    def abort_bash(self: AgentSession, request_id: str | None = None) -> bool:
        """Cancel one request (by id) or all of them. Returns whether anything was cancelled."""
        if request_id is not None:
            task = self.bash_tasks.get(request_id)
            if task is None:
                return False
            task.cancel()
            return True
        for task in list(self.bash_tasks.values()):
            task.cancel()
        return bool(self.bash_tasks)

    async def shutdown_bash(self: AgentSession) -> None:
        tasks = list(self.bash_tasks.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        # Let each run_bash store its (cancelled) result before the process exits.
        for _ in range(3):
            await asyncio.sleep(0)
